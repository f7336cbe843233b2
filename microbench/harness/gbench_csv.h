#pragma once
// Google Benchmark glue: each point is one registered benchmark (manual time, fixed
// iterations = samples), and a reporter that prints the usual console table and writes one
// tidy CSV row per point as soon as it finishes (the file is always whole).
#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "microbench/harness/stats.h"
#include "microbench/harness/tidy_csv.h"

namespace pk {

// Rows produced by benchmark functions, keyed by the benchmark's registered name.
class PointResults {
 public:
  void put(const std::string& name, Row row);
  // Removes and returns the row (empty Row if none was stored).
  Row take(const std::string& name);

 private:
  std::mutex mu_;
  std::map<std::string, Row> rows_;
};

// Where the CSV has the point-cost columns (point_cost.h), each row gets them: its wall time
// runs from the previous report (this reporter's construction for the first) to its own, and
// what was accumulated before its construction is dropped.
class TidyCsvReporter : public benchmark::ConsoleReporter {
 public:
  TidyCsvReporter(TidyCsv& csv, PointResults& results, Row metadata,
                  OutputOptions console = OO_Defaults);
  void ReportRuns(const std::vector<Run>& runs) override;
  int errors() const { return errors_; }
  int skipped() const { return skipped_; }
  int rows() const { return rows_; }

 private:
  TidyCsv& csv_;
  PointResults& results_;
  Row metadata_;
  int errors_ = 0, skipped_ = 0, rows_ = 0;
  bool cost_columns_ = false;
  std::chrono::steady_clock::time_point last_report_;
};

// Run-level failure across Google Benchmark versions (1.7: error_occurred, 1.8: skipped).
bool run_failed(const benchmark::BenchmarkReporter::Run& r);
std::string run_message(const benchmark::BenchmarkReporter::Run& r);

// Status values every study uses in its `status` column.
inline constexpr const char* kOk = "ok";
inline constexpr const char* kError = "error";
inline constexpr const char* kSkipped = "skipped";

// Runs one point's measurement and sets row["status"]: a SkipPoint becomes "skipped" and
// any other exception "error", each with its reason in row["error"] and reported to Google
// Benchmark, so one failed point never ends the run.
void measure_point(benchmark::State& state, Row& row, const std::function<void()>& measure);

// One point of a runner that times itself: each benchmark iteration measure(row) under
// measure_point, its manual time the row's `time_column` (microseconds; 0 where the point left
// it empty); the row stored under `name`, then `gap_ms` idle before the next point.
void run_timed_point(benchmark::State& state, PointResults& results, const std::string& name, Row row,
                     const std::string& time_column, double gap_ms, const std::function<void(Row&)>& measure);

// Google Benchmark's loop over a calibrated timer (a FlowTimer): one timer.sample() per
// iteration, whose time per operation is the iteration's manual time; returns those times in ms.
template <class Timer>
std::vector<double> sample_ms_per_op(benchmark::State& state, Timer& timer) {
  std::vector<double> ms;
  for (auto _ : state) {
    const auto smp = timer.sample();
    state.SetIterationTime(smp.step_ms_per_op / 1e3);
    ms.push_back(smp.step_ms_per_op);
  }
  return ms;
}

// How many samples a point's time columns summarize, and of how many operations each:
// iters_per_sample, samples (every writer of time columns below, and a study's own).
void put_sample_counts(Row& row, int iters_per_sample, size_t samples);
// The timing columns every gated study writes from its samples of `iters_per_sample`
// operations each, in ms: iters_per_sample, samples, time_us_median/min/max, cv.
void put_times(Row& row, const SampleStats& ms, int iters_per_sample);
// A study's own time columns from statistics in ms (`to_us` 1 for statistics already in us):
// <prefix>_median, _p10, _p90, _min in us.
void put_us_quantiles(Row& row, const std::string& prefix, const SampleStats& ms, double to_us = 1e3);
// A study that reports per unit of its operation (launch: a kernel; seqpar: a ring step):
// iters_per_sample, samples, op_us_median over the operation's samples `op_ms` (ms), and
// <prefix>_median, _p10, _p90, _min per unit (each sample over `units`). Returns the per-unit
// statistics, in ms.
SampleStats put_per_unit_times(Row& row, const std::vector<double>& op_ms, int iters_per_sample, double units,
                               const std::string& prefix);

}  // namespace pk
