// one_shot: every rank pulls every peer's whole input and sums it (kernels/collectives/allreduce_one_shot.cuh).
#include "kernels/collectives/allreduce_one_shot.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class OneShot final : public ArAlgorithm {
  ArKernels kernels() const override {
    return {all_reduce_one_shot_kernel<__nv_bfloat16>, all_reduce_one_shot_kernel<float>};
  }
  int threads() const override { return OneShotConfig::kThreads; }
  uint64_t bytes_per_block() const override { return OneShotConfig::kBytesPerBlock; }
};

}  // namespace

const ArAlgorithm& ar_one_shot() {
  static const OneShot a;
  return a;
}

}  // namespace pk::coll
