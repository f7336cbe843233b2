// ll: the low-latency dispatch and combine (kernels/ep/ll_dispatch.cuh, ll_combine.cuh), one
// kernel each, on `sms` SMs.
#include "microbench/ep/step_pair.h"

namespace pk::ep {

std::unique_ptr<Impl> make_ll(Context& c, const Point& p) {
  return std::make_unique<StepPair<LlDispatch, LlCombine>>(c, step_sms(c, p, "ll"), 1, [&c](const LlDispatch&) {
    return "LL lines, fixed regions of " + std::to_string(c.ll_cap()) + " rows per expert";
  });
}

}  // namespace pk::ep
