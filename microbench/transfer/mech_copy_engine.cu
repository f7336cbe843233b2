// Copy engine: one cudaMemcpyAsync per message between addresses the issuing GPU maps
// (its own memory, or a peer's through the symmetric table: P2P, IPC or VMM alike), issued
// on a stream of the issuing GPU, so push uses the source's engines and pull the
// destination's. No SMs involved.
#include <climits>

#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/copy_engine.h"

namespace pk::transfer {
namespace {

class CopyEngineOp final : public MessageOp {
 public:
  using MessageOp::MessageOp;
  void enqueue(cudaStream_t s, int group) override {
    const char* src = b_.src(group);
    char* dst = b_.dst(group);
    for (uint64_t i = 0; i < b_.ops; ++i)
      PK_CUDA_CHECK(cudaMemcpyAsync(dst + i * msg_, src + i * msg_, msg_, cudaMemcpyDeviceToDevice, s));
  }
  int enqueues_per_op() const override { return static_cast<int>(std::min<uint64_t>(b_.ops, INT_MAX)); }
};

class CopyEngine final : public CopyEngineMechanism<CopyEngineOp> {
 public:
  std::string name() const override { return "ce"; }
  std::string summary() const override { return "copy engine, one cudaMemcpyAsync per message"; }
  // Calls per operation; they are queued behind the start gate, and the queue is finite.
  uint64_t default_max_ops() const override { return 256; }
  std::vector<uint64_t> size_sweep(const GpuInfo&) const override { return pow2_sizes(16, 1ull << 30); }
};

}  // namespace

const Mechanism& copy_engine_mechanism() {
  static const CopyEngine m;
  return m;
}

}  // namespace pk::transfer
