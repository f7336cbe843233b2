// The two-shot all-reduces (kernels/collectives/allreduce_two_shot.cuh): push into the
// peers' landing slots, with and without ablation (b)'s two-way handshake, and pull. The
// blocks split one rank's chunk.
#include <algorithm>

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

// two_shot_push in rounds of about kRoundBytes of every block's chunk slice (the kernel's
// pipelined form): the reduce of round r - 1 overlaps round r's scatter. At least two rounds
// at every size, so that the pipelined path is what the odd-count GPU tests verify (empty
// rounds included); it pays from about 128 KiB per block (>= 64 MiB on 4 GPUs).
class TwoShotPushRounds final : public TwoShot {
  static constexpr uint64_t kRoundBytes = 128 * 1024;
  static constexpr int kMaxRounds = 64;
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_two_shot_push_kernel); }
  uint64_t scratch_bytes(const Problem& p, int) const override { return chunk_slots_bytes(p); }
  int rounds(const Problem& p, int blocks) const override {
    const uint64_t per_block = p.bytes / p.n / static_cast<uint64_t>(std::max(1, blocks));
    return static_cast<int>(std::clamp<uint64_t>((per_block + kRoundBytes - 1) / kRoundBytes, 2, kMaxRounds));
  }
};

class TwoShotPull final : public TwoShot {
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_two_shot_pull_kernel); }
};

}  // namespace

PK_DEFINE_ALL_REDUCE(two_shot_push, TwoShotPush(0))
PK_DEFINE_ALL_REDUCE(two_shot_push_handshake, TwoShotPush(1))
PK_DEFINE_ALL_REDUCE(two_shot_pull, TwoShotPull{})
PK_DEFINE_ALL_REDUCE(two_shot_push_rounds, TwoShotPushRounds{})

}  // namespace pk::coll
