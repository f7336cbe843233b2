// Copy engine: one cudaMemcpyAsync per message between addresses the issuing GPU maps
// (its own memory, or a peer's through the symmetric table: P2P, IPC or VMM alike), issued
// on a stream of the issuing GPU, so push uses the source's engines and pull the
// destination's. No SMs involved.
#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/copy_engine.h"

namespace pk::transfer {
namespace {

class CopyEngineOp final : public MessageOp {
 public:
  using MessageOp::MessageOp;

 private:
  void copy(const char* src, char* dst, cudaStream_t s) override {
    for (uint64_t i = 0; i < b_.ops; ++i)
      PK_CUDA_CHECK(cudaMemcpyAsync(dst + i * msg_, src + i * msg_, msg_, cudaMemcpyDeviceToDevice, s));
  }
};

}  // namespace

const Mechanism& copy_engine_mechanism() {
  // 256 calls per operation.
  static const CopyEngineMechanism<CopyEngineOp> m("ce", "copy engine, one cudaMemcpyAsync per message", 256, 16);
  return m;
}

}  // namespace pk::transfer
