// overlap: the dispatch overlapped with the grouped GEMM, inter-SM (kernels/ep/expert_gemm.cuh):
// the count exchange, then one kernel whose `sms` communicator blocks push and fan out the
// tokens while the other SMs' GEMM producers wait for each row tile's arrival flag.
#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_steps.h"
#include "microbench/harness/cuda_check.h"

namespace pk::ep {

namespace {
class Overlap final : public Impl {
 public:
  Overlap(Context& c, int comm) : Impl(c), d_(c, 0, true), g_(c, c.sm_budget() - comm, comm, &d_) {}
  void dispatch() override {
    for_each_gpu(ctx, [&](int g, cudaStream_t s) {
      d_.count(g, s);
      g_.run(g, s);
    });
  }
  int enqueues_per_op() const override { return 2; }
  void describe(Row& row) const override {
    g_.describe(row);
    row["config"] = "inter-SM: " + std::to_string(g_.comm()) + " communicator + " + std::to_string(g_.compute()) +
                    " GEMM blocks, per-row-tile arrival flags";
  }

 private:
  HtDispatch d_;
  ExpertGemm g_;
};
}  // namespace

std::unique_ptr<Impl> make_overlap(Context& c, const Point& p) {
  const int comm = p.sms ? p.sms : auto_sms("ht", p.tokens, c.sm_budget()) / 2;
  if (comm >= c.sm_budget()) throw SkipPoint("sms=" + std::to_string(comm) + " leaves no SM of the rank's " + std::to_string(c.sm_budget()) + " to the GEMM");
  return std::make_unique<Overlap>(c, std::max(1, comm));
}

}  // namespace pk::ep
