// Copy engine, batched: one cudaMemcpyBatchAsync (CUDA 12.8+) carries every message of an
// operation, so the driver sees one call instead of one per message. Does the copy
// engine's small-message collapse come from the per-call cost or from the engine? The
// batch lists the messages in a scattered order (no two neighbours in the list are
// neighbours in memory), so the driver cannot answer by merging them into one big copy.
#include <numeric>
#include <map>
#include <vector>

#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/copy_engine.h"

namespace pk::transfer {
namespace {

class CopyEngineBatchOp final : public FlowOp {
 public:
  CopyEngineBatchOp(const FlowBuffers& b, uint64_t msg) : b_(b), sizes_(b.ops, msg) {}
  // Each message of the batch takes its own place in the launch queue: counting the call as
  // one let a sample queue 49 Ki copies of 16 KiB behind the closed start gate, which filled
  // the queue and stalled the host until the gate timed out.
  int enqueues_per_op() const override { return static_cast<int>(b_.ops); }
  void enqueue(cudaStream_t s, int group) override {
    auto& [dst, src] = addresses(group);
    // One attribute for the whole batch: read the source in stream order (after the gate).
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t first = 0;
    PK_CUDA_CHECK(cudaMemcpyBatchAsync(dst.data(), src.data(), sizes_.data(), b_.ops, &attr, &first, 1, s));
  }

 private:
  // Pointer arrays per input group, built once: the host cost of an enqueue stays one call.
  std::pair<std::vector<void*>, std::vector<const void*>>& addresses(int group) {
    auto& a = groups_[group];
    if (a.first.empty()) {
      const uint64_t msg = sizes_.empty() ? 0 : sizes_[0];
      // Entry j is message (j * stride) mod ops: a permutation when stride and ops share no factor.
      uint64_t stride = b_.ops / 2 + 1;
      while (b_.ops > 2 && std::gcd(stride, b_.ops) != 1) ++stride;
      for (uint64_t j = 0; j < b_.ops; ++j) {
        const uint64_t i = b_.ops > 2 ? j * stride % b_.ops : j;
        a.first.push_back(b_.dst(group) + i * msg);
        a.second.push_back(b_.src(group) + i * msg);
      }
    }
    return a;
  }
  FlowBuffers b_;
  std::vector<size_t> sizes_;
  std::map<int, std::pair<std::vector<void*>, std::vector<const void*>>> groups_;
};

}  // namespace

const Mechanism& copy_engine_batch_mechanism() {
  // Messages in one batch call: up to the start gate's queue budget (--max-enqueued), so
  // one operation always fits behind the gate.
  static const CopyEngineMechanism<CopyEngineBatchOp> m(
      "ce_batch", "copy engine, one cudaMemcpyBatchAsync per operation (all messages)", 512, 1024);
  return m;
}

}  // namespace pk::transfer
