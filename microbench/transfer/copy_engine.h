#pragma once
// What the copy-engine mechanisms (ce, ce_batch, ce_2d) share: the engine is not an SM, so
// they declare no knobs (no knobs::sms: they count as 0 SMs wherever SMs are counted), take
// messages of any size unless their call limits it, have nothing to resolve, and an
// operation is their Op over the flow's buffers and message size.
#include <cstdint>
#include <memory>
#include <vector>

#include "microbench/transfer/mechanism.h"

namespace pk::transfer {

template <class Op>
class CopyEngineMechanism : public Mechanism {
 public:
  std::vector<KnobUse> knobs() const override { return {}; }
  uint64_t max_message(const GpuInfo&) const override { return UINT64_MAX; }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo&) const override {
    return std::make_unique<Op>(b, p.message_bytes);
  }

 protected:
  void resolve_knobs(TransferPoint&, const GpuInfo&) const override {}
};

}  // namespace pk::transfer
