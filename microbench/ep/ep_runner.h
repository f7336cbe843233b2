#pragma once
// One point of the study, on every rank alike:
//   prepare  the routing of (routing, T) on every rank, inputs of the timed seed, outputs
//            poisoned; the implementation built (a skip on any rank skips it everywhere);
//            one untimed operation (a broken implementation fails before any timing).
//   time     pk::FlowTimer: the operation queued back to back on every GPU behind the start
//            gate, a step = the slowest GPU of every rank; dispatch (or dispatch + GEMM), then
//            combine on the expert outputs of the last dispatch; median / p10 / p90 / min.
//   check    a final run on fresh inputs (another seed) into re-poisoned outputs: every
//            received row bit for bit in its expert's region with the right counts (and
//            regions), the GEMM's rows finite and spot-checked in fp64 on the host, every
//            combined element against the fp64 sum with the router weights. A wrong token is
//            an error row with its counts, never a time.
#include <benchmark/benchmark.h>

#include <string>

#include "microbench/ep/ep_context.h"
#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/study_point.h"

namespace pk::ep {

// What the checks of the final run found, over every rank.
struct Checked {
  double wrong_rows = 0, wrong_counts = 0, wrong_values = 0, max_rel = 0;
  std::string first;  // the first failure, in words ("" when none)
  bool ok() const { return wrong_rows == 0 && wrong_counts == 0 && wrong_values == 0; }
};
// Collective; after a dispatch / a combine / a dispatch_gemm operation of the current point.
// `ll`: the low-latency layout (fixed regions, one handle slot per source token).
Checked check_dispatch(Context& c, bool ll);
Checked check_combine(Context& c, uint64_t y_generation);
Checked check_gemm(Context& c);

class Runner : public StudyRunner<Runner, Context> {
 public:
  using StudyRunner::StudyRunner;
  static constexpr const char* kTimeColumn = "dispatch_us_median";
  // One point into `row` (the row's description included); throws SkipPoint, or an error (a
  // wrong result included, after the row got its check columns). The GPU tests call it.
  void measure(const Point& p, Row& row);
  static Row describe(const Point& p, const EpShape& shape, int processes);
};

}  // namespace pk::ep
