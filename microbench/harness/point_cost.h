#pragma once
// What one point costs beside what it measures, in every study's CSV row:
//   wall_ms         the point's wall time: from the previous point's report (the round's start
//                   for the first) to its own, so everything between two rows is in it (set-up,
//                   warm-up, samples, verification, the idle gap, Google Benchmark, the CSV);
//   timed_ms        the measured work inside it: the GPU time of its timed samples (FlowTimer:
//                   the slowest flow's span of every sample) and what a study times itself (the
//                   nccl-tests method's clock, in-kernel latency samples);
//   harness_ms      wall_ms - timed_ms: what the harness spends to take the measurement;
//   harness_phases  the host time of the parts that named themselves ("name:ms ..."), and
//                   `other` for the rest of wall_ms; `samples` is the host time around the timed
//                   samples (timed_ms is inside it).
// scripts/harness-overhead.sh prints the median harness_ms per study from any such CSV.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "microbench/harness/tidy_csv.h"

namespace pk {

// wall_ms, timed_ms, harness_ms, harness_phases: every study's binary appends them to its own
// columns (StudyMain), as the sweeps' schemas do (csv_table.h: declared_study).
const std::vector<std::string>& point_cost_columns();

// The process's accumulator for the point running now. Every call is cheap (a lock and a few
// adds); the reporter takes and clears it once per point.
namespace point_cost {

// Measured work of the current point, in ms.
void timed(double ms);
// Host time of a named part of the current point, in ms (added to the part's earlier time).
void phase(const std::string& name, double ms);

// Adds the time from its construction to its destruction to phase `name`.
class Phase {
 public:
  explicit Phase(std::string name) : name_(std::move(name)), t0_(std::chrono::steady_clock::now()) {}
  ~Phase() { phase(name_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count()); }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  std::string name_;
  std::chrono::steady_clock::time_point t0_;
};

struct Totals {
  double timed_ms = 0;
  std::vector<std::pair<std::string, double>> phases;  // in the order each part first reported
};
// What was accumulated since the last take(); clears it.
Totals take();

}  // namespace point_cost

// The cost columns of a row from the point's wall time and what it accumulated: harness_ms is
// wall - timed (never below 0: a timed span may end after the last report's clock read), and
// `other` in harness_phases the wall time no part named (omitted when under 0.01 ms).
void put_point_cost(Row& row, double wall_ms, const point_cost::Totals& t);

}  // namespace pk
