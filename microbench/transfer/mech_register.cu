// Register transfers: ld into registers, st to the destination, `vec_bytes` per access and
// `unroll` loads in flight per thread (kernels/transfer_register.cuh).
#include "../../kernels/transfer_register.cuh"
#include "../harness/cuda_check.h"
#include "../harness/sm_pinning.h"
#include "mechanism.h"

namespace pk::transfer {
namespace {

using CopyFn = void (*)(const char*, char*, uint64_t, uint32_t);

template <int V, bool Hint = false>
CopyFn pick_unroll(int unroll) {
  switch (unroll) {
    case 1: return &register_copy_kernel<RegisterCopyConfig<V, 1, Hint>>;
    case 2: return &register_copy_kernel<RegisterCopyConfig<V, 2, Hint>>;
    case 4: return &register_copy_kernel<RegisterCopyConfig<V, 4, Hint>>;
    case 8: return &register_copy_kernel<RegisterCopyConfig<V, 8, Hint>>;
  }
  return nullptr;
}

CopyFn pick_kernel(int vec, int unroll, bool l2_hint) {
  if (l2_hint) return vec == 16 ? pick_unroll<16, true>(unroll) : nullptr;
  switch (vec) {
    case 4: return pick_unroll<4>(unroll);
    case 8: return pick_unroll<8>(unroll);
    case 16: return pick_unroll<16>(unroll);
  }
  return nullptr;
}

class RegisterOp final : public FlowOp {
 public:
  RegisterOp(const FlowBuffers& b, PinnedLaunch l, CopyFn fn, uint32_t msg) : b_(b), l_(l), fn_(fn), msg_(msg) {}
  void enqueue(cudaStream_t s, int group) override {
    const char* src = b_.src_buf + b_.src_offset + group * b_.bytes_per_op;
    char* dst = b_.dst_buf + b_.dst_offset + group * b_.bytes_per_op;
    fn_<<<l_.grid, l_.block, l_.smem, s>>>(src, dst, b_.ops, msg_);
    PK_CUDA_CHECK_LAUNCH();
  }

 private:
  FlowBuffers b_;
  PinnedLaunch l_;
  CopyFn fn_;
  uint32_t msg_;
};

class Register : public Mechanism {
 public:
  explicit Register(bool l2_hint = false) : l2_hint_(l2_hint) {}
  std::string name() const override { return l2_hint_ ? "reg_l2hint" : "reg"; }
  std::string summary() const override {
    return l2_hint_ ? "register ld/st with the ld .L2::256B prefetch-size hint (16-B vectors)"
                    : "register ld/st, one message per block-iteration";
  }
  bool uses_sms() const override { return true; }
  uint64_t max_message(const GpuInfo&) const override { return 1ull << 30; }
  uint64_t default_max_ops() const override { return 1u << 20; }
  void resolve(TransferPoint& p, const GpuInfo& g) const override {
    if (p.sms == 0) p.sms = g.sm_count;
    if (p.threads == 0) p.threads = 512;
    if (p.blocks_per_sm == 0) p.blocks_per_sm = 1;
    if (p.vec_bytes == 0) p.vec_bytes = 16;
    if (p.unroll == 0) p.unroll = 4;
    p.depth = 0;
    validate_common(p, g, true);
    if (!pick_kernel(p.vec_bytes, p.unroll, l2_hint_))
      throw ArgError(name() + ": vector width must be " + (l2_hint_ ? "16" : "4, 8 or 16") +
                     " B and unroll 1, 2, 4 or 8 (got " + std::to_string(p.vec_bytes) + " B, " +
                     std::to_string(p.unroll) + ")");
    if (p.message_bytes > max_message(g)) throw ArgError(name() + ": message larger than 1 GiB");
  }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const override {
    CopyFn fn = pick_kernel(p.vec_bytes, p.unroll, l2_hint_);
    PinnedLaunch l = pin_to_sms(reinterpret_cast<const void*>(fn), b.sms, p.blocks_per_sm, p.threads, 0, g);
    return std::make_unique<RegisterOp>(b, l, fn, static_cast<uint32_t>(p.message_bytes));
  }

 private:
  bool l2_hint_;
};

}  // namespace

const Mechanism& register_mechanism() {
  static const Register m;
  return m;
}
const Mechanism& register_l2hint_mechanism() {
  static const Register m(true);
  return m;
}

}  // namespace pk::transfer
