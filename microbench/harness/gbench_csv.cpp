#include "microbench/harness/gbench_csv.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/timing.h"

namespace pk {

namespace {
// Test hook: the rank named by PKBENCH_FAULT_KILL_RANK sends itself SIGKILL when its
// PKBENCH_FAULT_KILL_AT-th point (default 1) starts, so the tests can check that a dead
// rank ends the run instead of leaving the others waiting.
void fault_hook() {
  static const char* victim = std::getenv("PKBENCH_FAULT_KILL_RANK");
  if (!victim || !*victim) return;
  int rank = 0;
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* e = std::getenv(v); e && *e) {
      rank = std::atoi(e);
      break;
    }
  if (rank != std::atoi(victim)) return;
  static int points = 0;
  const char* at = std::getenv("PKBENCH_FAULT_KILL_AT");
  if (++points < (at && *at ? std::atoi(at) : 1)) return;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  std::fprintf(stderr, "pkbench: fault hook: rank %d kills itself at %ld.%09ld\n", rank, static_cast<long>(ts.tv_sec),
               ts.tv_nsec);
  std::fflush(stderr);
  std::raise(SIGKILL);
}
}  // namespace

void measure_point(benchmark::State& state, Row& row, const std::function<void()>& measure) {
  fault_hook();
  try {
    measure();
    row["status"] = kOk;
  } catch (const SkipPoint& e) {
    row["status"] = kSkipped;
    row["error"] = e.what();
    state.SkipWithError(("skipped: " + std::string(e.what())).c_str());
  } catch (const std::exception& e) {
    row["status"] = kError;
    row["error"] = e.what();
    state.SkipWithError(e.what());
  }
}

void run_timed_point(benchmark::State& state, PointResults& results, const std::string& name, Row row,
                     const std::string& time_column, double gap_ms, const std::function<void(Row&)>& measure) {
  for (auto _ : state) {
    measure_point(state, row, [&] { measure(row); });
    state.SetIterationTime(row.count(time_column) && !row[time_column].empty() ? std::stod(row[time_column]) * 1e-6 : 0.0);
  }
  results.put(name, row);
  idle_gap(gap_ms);
}

void PointResults::put(const std::string& name, Row row) {
  std::lock_guard<std::mutex> l(mu_);
  rows_[name] = std::move(row);
}

Row PointResults::take(const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = rows_.find(name);
  if (it == rows_.end()) return {};
  Row r = std::move(it->second);
  rows_.erase(it);
  return r;
}

namespace {
// Templates so that the member test is a substitution failure, not an error.
template <class R>
bool failed_of(const R& r) {
  if constexpr (requires { r.skipped; }) {
    return static_cast<bool>(r.skipped);
  } else {
    return r.error_occurred;
  }
}
template <class R>
std::string message_of(const R& r) {
  if constexpr (requires { r.skip_message; }) {
    return r.skip_message;
  } else {
    return r.error_message;
  }
}
}  // namespace

bool run_failed(const benchmark::BenchmarkReporter::Run& r) { return failed_of(r); }
std::string run_message(const benchmark::BenchmarkReporter::Run& r) { return message_of(r); }

TidyCsvReporter::TidyCsvReporter(TidyCsv& csv, PointResults& results, Row metadata, OutputOptions console)
    : ConsoleReporter(console),
      csv_(csv),
      results_(results),
      metadata_(std::move(metadata)),
      last_report_(std::chrono::steady_clock::now()) {
  const auto& c = csv_.columns();
  cost_columns_ = std::find(c.begin(), c.end(), point_cost_columns().front()) != c.end();
  point_cost::take();  // what ran before the round (its set-up, the study's warm-up) is no point's cost
}

void TidyCsvReporter::ReportRuns(const std::vector<Run>& runs) {
  using clock = std::chrono::steady_clock;
  const auto now = clock::now();
  const double wall_ms = std::chrono::duration<double, std::milli>(now - last_report_).count();
  last_report_ = now;
  const point_cost::Totals cost = point_cost::take();
  ConsoleReporter::ReportRuns(runs);
  for (const Run& r : runs) {
    if (r.run_type != Run::RT_Iteration) continue;
    Row row = results_.take(r.run_name.function_name);
    if (row.empty()) {  // the function died before storing a row: keep the failure visible
      row["status"] = kError;
      row["error"] = run_failed(r) ? run_message(r) : "benchmark produced no result";
    }
    if (run_failed(r) && row["status"] == kOk) {
      row["status"] = kError;
      row["error"] = run_message(r);
    }
    if (row["status"] == kError) ++errors_;
    if (row["status"] == kSkipped) ++skipped_;
    for (const auto& [k, v] : metadata_) row[k] = v;
    if (cost_columns_) put_point_cost(row, wall_ms, cost);
    csv_.append(row);
    csv_.flush();
    ++rows_;
  }
  // The console line and the CSV of this point are the next point's cost (its wall time holds them).
  point_cost::phase("report", std::chrono::duration<double, std::milli>(clock::now() - now).count());
}

void put_sample_counts(Row& row, int iters_per_sample, size_t samples) {
  row["iters_per_sample"] = std::to_string(iters_per_sample);
  row["samples"] = std::to_string(samples);
}

void put_times(Row& row, const SampleStats& ms, int iters_per_sample) {
  put_sample_counts(row, iters_per_sample, ms.n);
  row["time_us_median"] = fmt_num(ms.median * 1e3);
  row["time_us_min"] = fmt_num(ms.min * 1e3);
  row["time_us_max"] = fmt_num(ms.max * 1e3);
  row["cv"] = fmt_num(ms.cv, 4);
}

void put_us_quantiles(Row& row, const std::string& prefix, const SampleStats& ms, double to_us) {
  row[prefix + "_median"] = fmt_num(ms.median * to_us);
  row[prefix + "_p10"] = fmt_num(ms.p10 * to_us);
  row[prefix + "_p90"] = fmt_num(ms.p90 * to_us);
  row[prefix + "_min"] = fmt_num(ms.min * to_us);
}

SampleStats put_per_unit_times(Row& row, const std::vector<double>& op_ms, int iters_per_sample, double units,
                               const std::string& prefix) {
  put_sample_counts(row, iters_per_sample, op_ms.size());
  row["op_us_median"] = fmt_num(summarize(op_ms).median * 1e3);
  std::vector<double> per_unit;
  for (double ms : op_ms) per_unit.push_back(ms / units);
  const SampleStats st = summarize(per_unit);
  put_us_quantiles(row, prefix, st);
  return st;
}

}  // namespace pk
