#pragma once
// nccl-tests' timing method (BenchTime in its src/common.cu, 2.19), step for step, so that
// time_us_nccltests is the figure all_reduce_perf & co. would print for the same collective:
//   one collective + completeColl ("Sync"), Barrier,
//   eager:  host timer; `iters` startColl back to back;
//   graph:  the `iters` startColl captured into one graph, Barrier, host timer, the graph
//           launched `graph_launches` times (-G);
//   completeColl (every stream synchronised), elapsed / (iters x launches), then the
//   average over ranks (nccl-tests' Allreduce with average = 1, not the maximum).
// The host clock and every step are injected: the CPU tests drive it with a fake clock.
#include <functional>

namespace pk::coll {

class HostClock {
 public:
  virtual ~HostClock() = default;
  virtual double now_s() = 0;
};
HostClock& steady_host_clock();  // std::chrono::steady_clock, as nccl-tests' timer

struct NcclTestsSteps {
  std::function<void()> barrier;              // every rank's host arrives (Barrier)
  std::function<void(int iter)> start;        // one collective on every local GPU (startColl)
  std::function<void()> complete;             // every local stream synchronised (completeColl)
  std::function<void()> begin_capture;        // graph mode: capture the local streams
  std::function<void()> end_capture;          // graph mode: end the capture, instantiate
  std::function<void()> launch_graph;         // graph mode: one launch on every local GPU
  std::function<double(double)> average;      // the mean over ranks
};

// Microseconds per collective. graph_launches = 0: eager (back-to-back calls); >= 1: -G.
double nccltests_time_us(HostClock& clock, int iters, int graph_launches, const NcclTestsSteps& s);

}  // namespace pk::coll
