// Copy engine: one cudaMemcpyPeerAsync (cudaMemcpyAsync for a local copy) per message,
// issued on a stream of the issuing GPU, so push uses the source's engines and pull the
// destination's. No SMs involved.
#include <climits>

#include "../harness/cuda_check.h"
#include "mechanism.h"

namespace pk::transfer {
namespace {

class CopyEngineOp final : public FlowOp {
 public:
  CopyEngineOp(const FlowBuffers& b, uint64_t msg) : b_(b), msg_(msg) {}
  void enqueue(cudaStream_t s, int group) override {
    const char* src = b_.src_buf + b_.src_offset + group * b_.bytes_per_op;
    char* dst = b_.dst_buf + b_.dst_offset + group * b_.bytes_per_op;
    for (uint64_t i = 0; i < b_.ops; ++i) {
      if (b_.src_gpu == b_.dst_gpu)
        PK_CUDA_CHECK(cudaMemcpyAsync(dst + i * msg_, src + i * msg_, msg_, cudaMemcpyDeviceToDevice, s));
      else
        PK_CUDA_CHECK(cudaMemcpyPeerAsync(dst + i * msg_, b_.dst_gpu, src + i * msg_, b_.src_gpu, msg_, s));
    }
  }
  int enqueues_per_op() const override { return static_cast<int>(std::min<uint64_t>(b_.ops, INT_MAX)); }

 private:
  FlowBuffers b_;
  uint64_t msg_;
};

class CopyEngine final : public Mechanism {
 public:
  std::string name() const override { return "ce"; }
  std::string summary() const override { return "copy engine, one cudaMemcpyPeerAsync per message"; }
  bool uses_sms() const override { return false; }
  uint64_t max_message(const GpuInfo&) const override { return UINT64_MAX; }
  // Calls per operation; they are queued behind the start gate, and the queue is finite.
  uint64_t default_max_ops() const override { return 256; }
  void resolve(TransferPoint& p, const GpuInfo& g) const override {
    validate_common(p, g, false);
    p.sms = p.blocks_per_sm = p.threads = p.depth = p.vec_bytes = p.unroll = 0;
  }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo&) const override {
    return std::make_unique<CopyEngineOp>(b, p.message_bytes);
  }
};

}  // namespace

const Mechanism& copy_engine_mechanism() {
  static const CopyEngine m;
  return m;
}

}  // namespace pk::transfer
