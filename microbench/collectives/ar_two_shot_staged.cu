// Ablation (d), two_shot_push_staged: every byte through a FIFO per (block, source), as
// NCCL's channels; and (b)+(d) with the two-way handshake (kernels/collectives/allreduce_staged.cuh).
#include "kernels/collectives/allreduce_staged.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class TwoShotStaged final : public ArAlgorithmOf<StagedConfig> {
 public:
  explicit TwoShotStaged(int handshake) : handshake_(handshake) {}

 private:
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_two_shot_staged_kernel); }
  uint64_t work_bytes(const Problem& p) const override { return p.bytes / p.n; }
  uint64_t scratch_bytes(const Problem& p, int blocks) const override { return StagedConfig::fifo_bytes(p.n, blocks); }
  int handshake() const override { return handshake_; }
  int handshake_;
};

}  // namespace

PK_DEFINE_ALL_REDUCE(two_shot_push_staged, TwoShotStaged(0))
PK_DEFINE_ALL_REDUCE(two_shot_push_handshake_staged, TwoShotStaged(1))

}  // namespace pk::coll
