// ll: the low-latency dispatch and combine (kernels/ep/ll_dispatch.cuh, ll_combine.cuh), one
// kernel each, on `sms` SMs.
#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_steps.h"

namespace pk::ep {

namespace {
class Ll final : public Impl {
 public:
  Ll(Context& c, int sms) : Impl(c), d_(c, sms), c_(c, sms) {}
  void dispatch() override { for_each_gpu(ctx, [&](int g, cudaStream_t s) { d_.run(g, s); }); }
  void combine() override { for_each_gpu(ctx, [&](int g, cudaStream_t s) { c_.run(g, s); }); }
  bool has_combine() const override { return true; }
  int enqueues_per_op() const override { return 1; }
  void describe(Row& row) const override {
    row["sms"] = std::to_string(d_.sms());
    row["threads"] = std::to_string(d_.threads());
    row["config"] = "LL lines, fixed regions of " + std::to_string(ctx.ll_cap()) + " rows per expert";
  }

 private:
  LlDispatch d_;
  LlCombine c_;
};
}  // namespace

std::unique_ptr<Impl> make_ll(Context& c, const Point& p) {
  return std::make_unique<Ll>(c, step_sms(c, p, "ll"));
}

}  // namespace pk::ep
