#pragma once
// What one point costs beside what it measures, in every study's CSV row:
//   wall_ms         the point's wall time: from the previous point's report (the round's start
//                   for the first) to its own, so everything between two rows is in it (set-up,
//                   warm-up, samples, verification, the idle gap, Google Benchmark, the CSV);
//   timed_ms        the measured work inside it, the timed samples that give the row's figures
//                   and nothing else (no warm-up, calibration or verified run):
//                     FlowTimer::sample()  the slowest flow's span of each sample (transfer,
//                                          gemm, fused, ep, seqpar, the collectives' device-time
//                                          view, the primitives' bandwidth rows);
//                     the collectives' nccl-tests method: its host clock's span of each run;
//                     in-kernel samples: the sum of the recorded samples (sync, the primitives'
//                                          latency rows; host-timed sync rows alike);
//   harness_ms      wall_ms - timed_ms: what the harness spends to take the measurement;
//   harness_phases  the host time of the parts that named themselves ("name:ms ..."), each
//                   part's own time (a part inside another counts once, in the inner one), and
//                   `other` for the rest of wall_ms. The parts:
//                     setup         allocation, registration, an implementation made ready
//                     communicator  NCCL communicators, NVSHMEM's initialisation
//                     inputs        a shape's inputs and references (gemm, fused: wherever first
//                                   made, a verified run's fresh inputs included)
//                     fill          inputs filled and outputs poisoned before timing
//                     barrier       a barrier between those steps
//                     first-run     the untimed operation before timing
//                     capture       graph capture, instantiation and destruction (collectives, launch)
//                     warm-up       FlowTimer::calibrate(): warm-up and calibration (its first run
//                                   the point's first launch with TimingOptions::ungated_first_run: fused)
//                     samples       the host time around the timed samples (timed_ms is in it)
//                     nccl-tests    the collectives' nccl-tests method (its clocked part timed)
//                     verify        the verified run on fresh inputs and its check
//                     clock         SM clock reads (NVML) around the samples
//                     link-counters NVLink counters around untimed passes (seqpar)
//                     gap           the idle gap between points
//                     report        the previous point's console line and CSV row
// pkbench_report --harness-cost DIR (scripts/harness-cost.sh runs the studies for it) prints
// the median and p90 of harness_ms per CSV.
#include <chrono>
#include <optional>
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

// Adds the time from its construction to its destruction to phase `name`, less the time of
// the phases opened inside it (each part's own time: nested parts never count twice, so the
// parts of a point sum to at most its wall time). Per thread; `name` must outlive it (a literal).
class Phase {
 public:
  explicit Phase(const char* name);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  const char* name_;
  std::chrono::steady_clock::time_point t0_;
  double inner_ms_ = 0;  // the phases opened inside this one
  Phase* outer_;
};

// fn() as phase `name` (a Phase around it); returns what fn returns.
template <class Fn>
decltype(auto) within(const char* name, Fn&& fn) {
  Phase p(name);
  return std::forward<Fn>(fn)();
}

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

// What a CSV's points cost, over its rows of status ok (a skipped or failed point measured
// nothing): medians and p90 of the cost columns, and each named part's median.
struct PointCostSummary {
  std::string csv, study, peer_mode;  // study and peer mode: the first row's ("" if none)
  int gpus = 0;                       // the first row's gpu_count (virtual: the ranks)
  size_t points = 0;                  // ok rows
  double harness_median_ms = 0, harness_p90_ms = 0, wall_median_ms = 0, timed_median_ms = 0;
  // Every part named in harness_phases with its median over the points (0 where a point has
  // none of it), largest first.
  std::vector<std::pair<std::string, double>> phases;
};
// nullopt where the CSV has no point-cost columns; CsvError (csv_table.h) where it cannot be
// read.
std::optional<PointCostSummary> summarize_point_cost(const std::string& csv);
// "setup:1.5 samples:3" -> {{"setup", 1.5}, {"samples", 3}}; CsvError naming `where` for a
// part that is not name:ms.
std::vector<std::pair<std::string, double>> parse_phases(const std::string& phases, const std::string& where);
// A markdown table, one line per summary (its CSV named as given), the largest `parts` parts each.
std::string point_cost_table(const std::vector<PointCostSummary>& summaries, size_t parts = 4);

}  // namespace pk
