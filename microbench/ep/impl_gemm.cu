// The grouped expert GEMM and the dispatches it follows (ep_gemm.cu): gemm_only (the GEMM
// alone on a layout an untimed ht dispatch left), ht_then_gemm and nccl_then_gemm (the
// dispatch, then the GEMM on every SM of the rank, in stream order).
#include "microbench/ep/ep_nccl.h"
#include "microbench/ep/gemm_after.h"

namespace pk::ep {

namespace {

class GemmOnly final : public GemmAfter<HtDispatch> {
 public:
  explicit GemmOnly(Context& c) : GemmAfter(c, 0, auto_sms("ht", c.shape.tokens, c.sm_budget())) {}
  void prepare_inputs() override {
    for_each_gpu(ctx, [&](int g, cudaStream_t s) { d_.run(g, s); });
    ctx.sync_local();
  }
  int enqueues_per_op() const override { return 1; }
  void describe(Row& row) const override {
    describe_gemm(row, "grouped GEMM 128x256x64, 4 stages, every SM; layout from an untimed ht dispatch");
  }
};

class HtThenGemm final : public GemmAfter<HtDispatch> {
 public:
  HtThenGemm(Context& c, int sms) : GemmAfter(c, 0, sms) {}
  int enqueues_per_op() const override { return 3; }
  void describe(Row& row) const override {
    d_.describe(row);
    describe_gemm(row, "ht dispatch, then the grouped GEMM on every SM");
  }

 private:
  void before_gemm(int gpu, cudaStream_t s) override { d_.run(gpu, s); }
};

class NcclThenGemm final : public GemmAfter<NcclBaseline> {
 public:
  explicit NcclThenGemm(Context& c) : GemmAfter(c, 0, c.sm_budget()) {}
  // NCCL's dispatch is one group call over every local GPU: all of it before any GEMM.
  void enqueue() override {
    d_.dispatch();
    GemmAfter::enqueue();
  }
  int enqueues_per_op() const override { return d_.enqueues_per_op() + 1; }
  void describe(Row& row) const override {
    describe_gemm(row, "NCCL " + NcclBaseline::version() + " dispatch, then the grouped GEMM on every SM");
  }
};

}  // namespace

std::unique_ptr<Impl> make_gemm_only(Context& c, const Point&) { return std::make_unique<GemmOnly>(c); }
std::unique_ptr<Impl> make_ht_then_gemm(Context& c, const Point& p) {
  return std::make_unique<HtThenGemm>(c, step_sms(c, p, "ht"));
}
std::unique_ptr<Impl> make_nccl_then_gemm(Context& c, const Point&) { return std::make_unique<NcclThenGemm>(c); }

}  // namespace pk::ep
