// ht: the high-throughput dispatch (count exchange, then the data step on `sms` SMs) and
// combine (kernels/ep/ht_count.cuh, ht_dispatch.cuh, ht_combine.cuh).
#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_steps.h"

namespace pk::ep {

namespace {
class Ht final : public Impl {
 public:
  Ht(Context& c, int sms) : Impl(c), d_(c, sms, false), c_(c, sms) {}
  void dispatch() override {
    for_each_gpu(ctx, [&](int g, cudaStream_t s) {
      d_.count(g, s);
      d_.data(g, s);
    });
  }
  void combine() override { for_each_gpu(ctx, [&](int g, cudaStream_t s) { c_.run(g, s); }); }
  bool has_combine() const override { return true; }
  int enqueues_per_op() const override { return 2; }
  void describe(Row& row) const override {
    row["sms"] = std::to_string(d_.sms());
    row["threads"] = std::to_string(d_.threads());
    row["config"] = "count exchange (1 block) + register push, " + std::to_string(ht_receivers(d_.threads() / 32)) +
                    " receiver warps per block";
  }

 private:
  HtDispatch d_;
  HtCombine c_;
};
}  // namespace

std::unique_ptr<Impl> make_ht(Context& c, const Point& p) {
  return std::make_unique<Ht>(c, step_sms(c, p, "ht"));
}

}  // namespace pk::ep
