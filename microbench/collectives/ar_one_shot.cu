// one_shot: every rank pulls every peer's whole input and sums it (kernels/collectives/allreduce_one_shot.cuh).
#include "kernels/collectives/allreduce_one_shot.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class OneShot final : public ArAlgorithmOf<OneShotConfig> {
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_one_shot_kernel); }
  bool pdl_twin() const override { return true; }
};

}  // namespace

PK_DEFINE_ALL_REDUCE(one_shot, OneShot{})

}  // namespace pk::coll
