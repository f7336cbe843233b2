#pragma once
// The launch study's harness: one counter per GPU, the launch variants (launch_list.h) as cases
// of the shared case base (harness/op_case.h), the check, and the runner.
//   an operation  `kernels` launches of count_blocks (kernels/launch/count_blocks.cuh) on every
//                 GPU this process drives, each GPU on its own stream, as the variant launches
//                 them (stream, PDL, or one CUDA graph captured once per point);
//   a point       one untimed operation (a variant that cannot launch fails first), the timed
//                 operations (pk::FlowTimer behind the start gate: the GPU's time, the host's
//                 enqueue outside it; the host's own time in the launch calls counted apart),
//                 then a final operation on counters set to new random values: each must have
//                 grown by exactly kernels x blocks.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/op_case.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/study_context.h"
#include "microbench/harness/timing.h"
#include "microbench/harness/topology.h"
#include "microbench/launch/launch_problem.h"

namespace pk::launch {

struct LaunchOptions {
  TimingOptions timing;
  uint64_t seed = 0x1A0C4ull;  // the counters' start values
};

class Context : public StudyContext {
 public:
  Context(PeerGroup& g, const LaunchOptions& o, const std::vector<Point>& points);
  ~Context();

  LaunchOptions opt;
  int ranks() const { return group.size(); }
  unsigned long long* counter(int gpu) { return counter_.at(gpu); }
  // The point's grid on `gpu`: its blocks, or one per SM of the rank (a virtual rank's share).
  int blocks(const Point& p, int gpu) const;

 private:
  std::map<int, unsigned long long*> counter_;
};

// One variant at one point: its operation launches the point's kernels on every GPU this process
// drives, and counts the host's time in those calls.
class Case : public OpCase<Context> {
 public:
  using OpCase::OpCase;
  // The host's seconds in the launch calls since the last reset, and the calls made.
  virtual void reset_host_time() = 0;
  virtual double host_seconds() const = 0;
  virtual long long calls() const = 0;
};
// What GPU g lacks to run the point ("" when nothing): this build's code, and sm_90 for PDL.
std::string missing_for(const Point& p, const GpuInfo& g);
// ArgError for a variant this build does not register; SkipPoint where this GPU cannot run it.
std::unique_ptr<Case> make_case(Context& c, const Point& p);

// The check of the final operation, over every rank.
struct Counted {
  bool ok = true;
  uint64_t counted = 0, expected = 0;  // this process's first GPU
  std::string first;                   // what the first wrong counter of this process read
};
// Collective: every local counter set to a new random value of `seed`, one operation of `k`
// untimed, each counter checked for that value plus kernels x blocks.
Counted run_and_count(Context& c, Case& k, const Point& p, uint64_t seed);

class Runner {
 public:
  Runner(Context& c, PointResults& r) : ctx_(c), results_(r) {}
  static constexpr const char* kTimeColumn = "us_per_kernel_median";
  void run(benchmark::State& state, const Point& p);
  // One point into `row`; throws SkipPoint, or an error (a wrong count included, after the row
  // got its check columns). The GPU tests call it.
  void measure(const Point& p, Row& row);
  static Row describe(const Point& p, int processes);

 private:
  Context& ctx_;
  PointResults& results_;
};

}  // namespace pk::launch
