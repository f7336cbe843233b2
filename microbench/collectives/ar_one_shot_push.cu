// one_shot_push: every rank pushes its whole input into every peer's scratch and sums locally
// (kernels/collectives/allreduce_one_shot_push.cuh).
#include "kernels/collectives/allreduce_one_shot_push.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {

namespace {

class OneShotPush final : public ArAlgorithmOf<OneShotPushConfig> {
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_one_shot_push_kernel); }
  // A slot holds the whole vector, 16-B aligned.
  uint64_t slot_elems(const Problem& p) const override {
    const uint64_t v = 16 / p.elem_bytes();
    return (p.count + v - 1) / v * v;
  }
  uint64_t scratch_bytes(const Problem& p, int) const override {
    return 2ull * static_cast<uint64_t>(p.n) * slot_elems(p) * p.elem_bytes();
  }
  bool applies(const Problem& p) const override { return p.bytes <= OneShotPushConfig::kMaxBytes; }
};

}  // namespace

PK_DEFINE_ALL_REDUCE(one_shot_push, OneShotPush{})

}  // namespace pk::coll
