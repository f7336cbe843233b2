// Copy engine, 2-D: an operation's messages as the rows of strided 2-D copies
// (cudaMemcpy2DAsync), the even-numbered messages in one call and the odd-numbered in a
// second, each a row of the message's width at a pitch of two messages: the same bytes as
// `ce`, but two calls per operation whatever the message count, and rows that are really
// strided (at a pitch equal to the width the driver could treat the copy as one 1-D copy).
// Does the engine's own 2-D descriptor carry many small rows better than a call per message
// (ce) or a batch of them (ce_batch)?
#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/copy_engine.h"

namespace pk::transfer {
namespace {

class CopyEngine2dOp final : public MessageOp {
 public:
  using MessageOp::MessageOp;

 private:
  void copy(const char* src, char* dst, cudaStream_t s) override {
    for (uint64_t first : {0, 1}) {  // messages first, first + 2, first + 4, ...
      const uint64_t rows = (b_.ops - first + 1) / 2;
      if (rows == 0) continue;
      const uint64_t pitch = rows > 1 ? 2 * msg_ : msg_;
      PK_CUDA_CHECK(cudaMemcpy2DAsync(dst + first * msg_, pitch, src + first * msg_, pitch, msg_, rows,
                                      cudaMemcpyDeviceToDevice, s));
    }
  }
};

// Rows per operation: the start gate's queue budget (--max-enqueued), as ce_batch.
class CopyEngine2d final : public CopyEngineMechanism<CopyEngine2dOp> {
 public:
  CopyEngine2d()
      : CopyEngineMechanism(
            "ce_2d", "copy engine, an operation's messages as the rows of two strided cudaMemcpy2DAsync calls (even, odd)",
            512, 16) {}
  // The pitch (two messages) stays within CUDA's 2^31 - 1 B.
  uint64_t max_message(const GpuInfo&) const override { return 512ull << 20; }

 protected:
  void resolve_knobs(TransferPoint& p, const GpuInfo& g) const override {
    if (p.message_bytes > max_message(g))
      throw ArgError("ce_2d: message " + std::to_string(p.message_bytes) + " B above " +
                     std::to_string(max_message(g)) + " B (the 2-D copy's pitch is two messages)");
  }
};

}  // namespace

const Mechanism& copy_engine_2d_mechanism() {
  static const CopyEngine2d m;
  return m;
}

}  // namespace pk::transfer
