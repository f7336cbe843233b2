#include "microbench/collectives/nccltests_method.h"

#include <algorithm>
#include <chrono>

namespace pk::coll {

namespace {
class SteadyClock final : public HostClock {
 public:
  double now_s() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};
}  // namespace

HostClock& steady_host_clock() {
  static SteadyClock c;
  return c;
}

double nccltests_time_us(HostClock& clock, int iters, int graph_launches, const NcclTestsSteps& s) {
  iters = std::max(1, iters);
  const bool graph = graph_launches >= 1;
  s.start(0);
  s.complete();
  s.barrier();
  if (graph) s.begin_capture();
  double t0 = clock.now_s();
  for (int i = 0; i < iters; ++i) s.start(i);
  if (graph) {
    // nccl-tests restarts its timer after the capture: only the replays are timed.
    s.end_capture();
    s.barrier();
    t0 = clock.now_s();
    for (int l = 0; l < graph_launches; ++l) s.launch_graph();
  }
  s.complete();
  const double per_op_s = (clock.now_s() - t0) / (static_cast<double>(iters) * std::max(1, graph_launches));
  return s.average(per_op_s) * 1e6;
}

}  // namespace pk::coll
