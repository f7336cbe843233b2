// Ablation (d), two_shot_push_staged: every byte through a FIFO per (block, source), as
// NCCL's channels; and (b)+(d) with the two-way handshake (kernels/collectives/allreduce_staged.cuh).
#include "kernels/collectives/allreduce_staged.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class TwoShotStaged final : public ArAlgorithm {
 public:
  explicit TwoShotStaged(int handshake) : handshake_(handshake) {}

 private:
  ArKernels kernels() const override {
    return {all_reduce_two_shot_staged_kernel<__nv_bfloat16>, all_reduce_two_shot_staged_kernel<float>};
  }
  int threads() const override { return StagedConfig::kThreads; }
  uint64_t bytes_per_block() const override { return StagedConfig::kBytesPerBlock; }
  uint64_t work_bytes(const Problem& p) const override { return p.bytes / p.n; }
  uint64_t scratch_bytes(const Problem& p, int blocks) const override { return StagedConfig::fifo_bytes(p.n, blocks); }
  int handshake() const override { return handshake_; }
  int handshake_;
};

}  // namespace

const ArAlgorithm& ar_two_shot_push_staged() {
  static const TwoShotStaged a(0);
  return a;
}
const ArAlgorithm& ar_two_shot_push_handshake_staged() {
  static const TwoShotStaged a(1);
  return a;
}

}  // namespace pk::coll
