// ll: the low-latency protocol (kernels/collectives/allreduce_ll.cuh), small messages only.
#include "kernels/collectives/allreduce_ll.cuh"
#include "microbench/collectives/ar_algorithm.h"

namespace pk::coll {
namespace {

class Ll final : public ArAlgorithm {
  // Half of every line is flag, so the protocol doubles the bytes on the wire: it serves
  // small messages only.
  static constexpr uint64_t kMaxBytes = 4ull << 20;
  ArKernels kernels() const override { return PK_AR_KERNELS(all_reduce_ll_kernel); }
  int threads() const override { return LlConfig::kThreads; }
  uint64_t bytes_per_block() const override { return LlConfig::kLinesPerBlock * LlConfig::kLineBytes; }
  uint64_t work_bytes(const Problem& p) const override {
    return LlConfig::lines(p.count, p.elem_bytes()) * LlConfig::kLineBytes;
  }
  uint64_t scratch_bytes(const Problem& p, int) const override {
    return LlConfig::scratch_bytes(p.count, p.elem_bytes(), p.n);
  }
  bool applies(const Problem& p) const override { return p.bytes <= kMaxBytes; }
  // Stale lines of another point must not carry a valid epoch.
  bool zero_scratch() const override { return true; }
  bool pdl_twin() const override { return true; }
};

}  // namespace

PK_DEFINE_ALL_REDUCE(ll, Ll{})

}  // namespace pk::coll
