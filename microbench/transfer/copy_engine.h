#pragma once
// What the copy-engine mechanisms (ce, ce_batch, ce_2d) share: the engine is not an SM, so
// they declare no knobs (no knobs::sms: they count as 0 SMs wherever SMs are counted), take
// messages of any size unless their call limits it, have nothing to resolve, and an
// operation is their Op over the flow's buffers and message size.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "microbench/transfer/mechanism.h"

namespace pk::transfer {

// An operation that copies the flow's messages of one size by copy calls: `copy` issues one
// group's messages from `src` to `dst`. Each message counts as an enqueue: should the driver
// split a call into its messages (or a 2-D copy into its rows), a sample must still fit in the
// start gate's queue budget.
class MessageOp : public FlowOp {
 public:
  MessageOp(const FlowBuffers& b, uint64_t msg) : b_(b), msg_(msg) {}
  void enqueue(cudaStream_t s, int group) final { copy(b_.src(group), b_.dst(group), s); }
  int enqueues_per_op() const final { return static_cast<int>(std::min<uint64_t>(b_.ops, INT_MAX)); }

 protected:
  virtual void copy(const char* src, char* dst, cudaStream_t s) = 0;
  FlowBuffers b_;
  uint64_t msg_;
};

// `max_ops`: the messages of one operation by default (its calls, or the messages of its
// one call), all queued behind the start gate, whose queue is finite. The fig2 sizes: powers
// of two from `smallest` to the largest message, at most 1 GiB.
template <class Op>
class CopyEngineMechanism : public Mechanism {
 public:
  CopyEngineMechanism(std::string name, std::string summary, uint64_t max_ops, uint64_t smallest)
      : name_(std::move(name)), summary_(std::move(summary)), max_ops_(max_ops), smallest_(smallest) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return summary_; }
  std::vector<KnobUse> knobs() const override { return {}; }
  uint64_t max_message(const GpuInfo&) const override { return UINT64_MAX; }
  uint64_t default_max_ops() const override { return max_ops_; }
  std::vector<uint64_t> size_sweep(const GpuInfo& g) const override {
    return pow2_sizes(smallest_, std::min<uint64_t>(max_message(g), 1ull << 30));
  }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo&) const override {
    return std::make_unique<Op>(b, p.message_bytes);
  }

 protected:
  void resolve_knobs(TransferPoint&, const GpuInfo&) const override {}

 private:
  std::string name_, summary_;
  uint64_t max_ops_, smallest_;
};

}  // namespace pk::transfer
