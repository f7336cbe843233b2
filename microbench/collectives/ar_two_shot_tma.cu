// two_shot_tma: two-shot push by warp-specialised bulk copies (kernels/collectives/allreduce_tma.cuh).
#include "kernels/collectives/allreduce_tma.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class TwoShotTma final : public ArAlgorithm {
  ArKernels kernels() const override {
    return {all_reduce_two_shot_tma_kernel<__nv_bfloat16>, all_reduce_two_shot_tma_kernel<float>};
  }
  int threads() const override { return TmaConfig::kThreads; }
  uint64_t bytes_per_block() const override { return TmaConfig::kBytesPerBlock; }
  uint64_t work_bytes(const Problem& p) const override { return p.bytes / p.n; }
  uint64_t scratch_bytes(const Problem& p, int) const override { return chunk_slots_bytes(p); }
  size_t smem_bytes() const override { return TmaConfig::smem_bytes(); }
  bool uses_tma() const override { return true; }
};

}  // namespace

const ArAlgorithm& ar_two_shot_tma() {
  static const TwoShotTma a;
  return a;
}

}  // namespace pk::coll
