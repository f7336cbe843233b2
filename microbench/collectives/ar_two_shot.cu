// The two-shot all-reduces (kernels/collectives/allreduce_two_shot.cuh): push into the
// peers' landing slots, with and without ablation (b)'s two-way handshake, and pull. The
// blocks split one rank's chunk.
#include "kernels/collectives/allreduce_two_shot.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class TwoShot : public ArAlgorithm {
  int threads() const override { return TwoShotConfig::kThreads; }
  uint64_t bytes_per_block() const override { return TwoShotConfig::kBytesPerBlock; }
  uint64_t work_bytes(const Problem& p) const override { return p.bytes / p.n; }
};

class TwoShotPush final : public TwoShot {
 public:
  explicit TwoShotPush(int handshake) : handshake_(handshake) {}

 private:
  ArKernels kernels() const override {
    return {all_reduce_two_shot_push_kernel<__nv_bfloat16>, all_reduce_two_shot_push_kernel<float>};
  }
  uint64_t scratch_bytes(const Problem& p, int) const override { return chunk_slots_bytes(p); }
  int handshake() const override { return handshake_; }
  int handshake_;
};

class TwoShotPull final : public TwoShot {
  ArKernels kernels() const override {
    return {all_reduce_two_shot_pull_kernel<__nv_bfloat16>, all_reduce_two_shot_pull_kernel<float>};
  }
};

}  // namespace

const ArAlgorithm& ar_two_shot_push() {
  static const TwoShotPush a(0);
  return a;
}
const ArAlgorithm& ar_two_shot_push_handshake() {
  static const TwoShotPush a(1);
  return a;
}
const ArAlgorithm& ar_two_shot_pull() {
  static const TwoShotPull a;
  return a;
}

}  // namespace pk::coll
