// overlap: the dispatch overlapped with the grouped GEMM, inter-SM (kernels/ep/expert_gemm.cuh):
// the count exchange, then one kernel whose `sms` communicator blocks push and fan out the
// tokens while the other SMs' GEMM producers wait for each row tile's arrival flag.
#include "microbench/ep/gemm_after.h"
#include "microbench/harness/cuda_check.h"

namespace pk::ep {

namespace {
class Overlap final : public GemmAfter<HtDispatch> {
 public:
  // The data step has no SMs of its own (0) and raises the arrival flags the GEMM waits on.
  Overlap(Context& c, int comm) : GemmAfter(c, comm, 0, true) {}
  int enqueues_per_op() const override { return 2; }
  void describe(Row& row) const override {
    describe_gemm(row, "inter-SM: " + std::to_string(g_.comm()) + " communicator + " + std::to_string(g_.compute()) +
                           " GEMM blocks, per-row-tile arrival flags");
  }

 private:
  // The count exchange only: the GEMM's communicator blocks run the data step.
  void before_gemm(int gpu, cudaStream_t s) override { d_.count(gpu, s); }
};
}  // namespace

std::unique_ptr<Impl> make_overlap(Context& c, const Point& p) {
  const int comm = p.sms ? p.sms : auto_sms("ht", p.tokens, c.sm_budget()) / 2;
  if (comm >= c.sm_budget()) throw SkipPoint("sms=" + std::to_string(comm) + " leaves no SM of the rank's " + std::to_string(c.sm_budget()) + " to the GEMM");
  return std::make_unique<Overlap>(c, std::max(1, comm));
}

}  // namespace pk::ep
