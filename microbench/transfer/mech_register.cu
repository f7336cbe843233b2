// Register transfers: ld into registers, st to the destination, `vec_bytes` per access and
// `unroll` loads in flight per thread (kernels/transfer_register.cuh).
#include "kernels/transfer_register.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/sm_pinning.h"
#include "microbench/transfer/mechanism.h"

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
    const char* src = b_.src(group);
    char* dst = b_.dst(group);
    fn_<<<l_.grid, l_.block, l_.smem, s>>>(src, dst, b_.ops, msg_);
    PK_CUDA_CHECK_LAUNCH();
  }

 private:
  FlowBuffers b_;
  PinnedLaunch l_;
  CopyFn fn_;
  uint32_t msg_;
};

const Knob kVec{"vec_bytes", "vecs", "B", "register: bytes per ld/st", {4, 8, 16}};
const Knob kUnroll{"unroll", "unrolls", "loads", "register: loads in flight per thread", {1, 2, 4, 8}};

class Register : public Mechanism {
 public:
  explicit Register(bool l2_hint = false) : l2_hint_(l2_hint) {}
  std::vector<KnobUse> knobs() const override {
    Knob vec = kVec;
    if (l2_hint_) vec.allowed = {16};  // the .L2::256B hint exists for 16-B loads here
    return {{knobs::sms, 0}, {knobs::blocks_per_sm, 1}, {knobs::threads, 512}, {vec, 16}, {kUnroll, 4}};
  }
  std::string name() const override { return l2_hint_ ? "reg_l2hint" : "reg"; }
  std::string summary() const override {
    return l2_hint_ ? "register ld/st with the ld .L2::256B prefetch-size hint (16-B vectors)"
                    : "register ld/st, one message per block-iteration";
  }
  uint64_t max_message(const GpuInfo&) const override { return 1ull << 30; }
  uint64_t default_max_ops() const override { return 1u << 20; }
  // The 16-B-only l2hint variant from 1 KiB.
  std::vector<uint64_t> size_sweep(const GpuInfo&) const override { return pow2_sizes(l2_hint_ ? 1024 : 16, 1u << 20); }
  void resolve_knobs(TransferPoint& p, const GpuInfo& g) const override {
    if (p.message_bytes > max_message(g)) throw ArgError(name() + ": message larger than 1 GiB");
    if (p.message_bytes % p.knob(kVec.name))
      throw ArgError(name() + ": message " + std::to_string(p.message_bytes) + " B is not a multiple of --vecs=" +
                     std::to_string(p.knob(kVec.name)));
  }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const override {
    CopyFn fn = pick_kernel(p.knob(kVec.name), p.knob(kUnroll.name), l2_hint_);
    if (!fn) throw ArgError(name() + ": no kernel for this vector width and unroll");
    PinnedLaunch l = pin_to_sms(reinterpret_cast<const void*>(fn), b.sms, p.knob(knobs::blocks_per_sm.name),
                                p.knob(knobs::threads.name), 0, g);
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
