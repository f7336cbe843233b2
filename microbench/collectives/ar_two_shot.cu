// The two-shot all-reduces (kernels/collectives/allreduce_two_shot.cuh): push into the
// peers' landing slots, with and without ablation (b)'s two-way handshake, and pull. The
// blocks split one rank's chunk.
#include "kernels/collectives/allreduce_two_shot.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class TwoShot : public ArAlgorithmOf<TwoShotConfig> {
  uint64_t work_bytes(const Problem& p) const override { return p.bytes / p.n; }
};

class TwoShotPush final : public TwoShot {
 public:
  explicit TwoShotPush(int handshake) : handshake_(handshake) {}

 private:
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_two_shot_push_kernel); }
  uint64_t scratch_bytes(const Problem& p, int) const override { return chunk_slots_bytes(p); }
  int handshake() const override { return handshake_; }
  int handshake_;
};

class TwoShotPull final : public TwoShot {
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_two_shot_pull_kernel); }
};

}  // namespace

PK_DEFINE_ALL_REDUCE(two_shot_push, TwoShotPush(0))
PK_DEFINE_ALL_REDUCE(two_shot_push_handshake, TwoShotPush(1))
PK_DEFINE_ALL_REDUCE(two_shot_pull, TwoShotPull{})

}  // namespace pk::coll
