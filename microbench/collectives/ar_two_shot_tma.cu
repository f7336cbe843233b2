// two_shot_tma: two-shot push by warp-specialised bulk copies (kernels/collectives/allreduce_tma.cuh).
#include "kernels/collectives/allreduce_tma.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class TwoShotTma final : public ArAlgorithmOf<TmaConfig> {
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_two_shot_tma_kernel); }
  uint64_t work_bytes(const Problem& p) const override { return p.bytes / p.n; }
  uint64_t scratch_bytes(const Problem& p, int) const override { return chunk_slots_bytes(p); }
  size_t smem_bytes() const override { return TmaConfig::smem_bytes(); }
  bool uses_tma() const override { return true; }
};

}  // namespace

PK_DEFINE_ALL_REDUCE(two_shot_tma, TwoShotTma{})

}  // namespace pk::coll
