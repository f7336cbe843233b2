// ht: the high-throughput dispatch (count exchange, then the data step on `sms` SMs) and
// combine (kernels/ep/ht_count.cuh, ht_dispatch.cuh, ht_combine.cuh).
#include "microbench/ep/step_pair.h"

namespace pk::ep {

std::unique_ptr<Impl> make_ht(Context& c, const Point& p) {
  // Two enqueues a dispatch: the count exchange, then the data step.
  return std::make_unique<StepPair<HtDispatch, HtCombine>>(c, step_sms(c, p, "ht"), 2, [](const HtDispatch& d) {
    return "count exchange (1 block) + register push, " + std::to_string(ht_receivers(d.threads() / 32)) +
           " receiver warps per block";
  });
}

}  // namespace pk::ep
