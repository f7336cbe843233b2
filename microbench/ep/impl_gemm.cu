// The grouped expert GEMM and the dispatches it follows (ep_gemm.cu): gemm_only (the GEMM
// alone on a layout an untimed ht dispatch left), ht_then_gemm and nccl_then_gemm (the
// dispatch, then the GEMM on every SM of the rank, in stream order).
#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_nccl.h"
#include "microbench/ep/ep_steps.h"

namespace pk::ep {

namespace {

class GemmOnly final : public Impl {
 public:
  explicit GemmOnly(Context& c) : Impl(c), d_(c, auto_sms("ht", c.shape.tokens, c.sm_budget())), g_(c, c.sm_budget(), 0, nullptr) {}
  void prepare_inputs() override {
    for_each_gpu(ctx, [&](int g, cudaStream_t s) { d_.run(g, s); });
    ctx.sync_local();
  }
  void dispatch() override { for_each_gpu(ctx, [&](int g, cudaStream_t s) { g_.run(g, s); }); }
  int enqueues_per_op() const override { return 1; }
  void describe(Row& row) const override {
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = "grouped GEMM 128x256x64, 4 stages, every SM; layout from an untimed ht dispatch";
  }

 private:
  HtDispatch d_;
  ExpertGemm g_;
};

class HtThenGemm final : public Impl {
 public:
  HtThenGemm(Context& c, int sms) : Impl(c), d_(c, sms), g_(c, c.sm_budget(), 0, nullptr) {}
  void dispatch() override {
    for_each_gpu(ctx, [&](int g, cudaStream_t s) {
      d_.run(g, s);
      g_.run(g, s);
    });
  }
  int enqueues_per_op() const override { return 3; }
  void describe(Row& row) const override {
    d_.describe(row);
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = "ht dispatch, then the grouped GEMM on every SM";
  }

 private:
  HtDispatch d_;
  ExpertGemm g_;
};

class NcclThenGemm final : public Impl {
 public:
  explicit NcclThenGemm(Context& c) : Impl(c), n_(c, c.sm_budget()), g_(c, c.sm_budget(), 0, nullptr) {}
  void dispatch() override {
    n_.dispatch();
    for_each_gpu(ctx, [&](int g, cudaStream_t s) { g_.run(g, s); });
  }
  int enqueues_per_op() const override { return n_.enqueues_per_op() + 1; }
  void describe(Row& row) const override {
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = "NCCL " + NcclBaseline::version() + " dispatch, then the grouped GEMM on every SM";
  }

 private:
  NcclBaseline n_;
  ExpertGemm g_;
};

}  // namespace

std::unique_ptr<Impl> make_gemm_only(Context& c, const Point&) { return std::make_unique<GemmOnly>(c); }
std::unique_ptr<Impl> make_ht_then_gemm(Context& c, const Point& p) {
  return std::make_unique<HtThenGemm>(c, step_sms(c, p, "ht"));
}
std::unique_ptr<Impl> make_nccl_then_gemm(Context& c, const Point&) { return std::make_unique<NcclThenGemm>(c); }

}  // namespace pk::ep
