// The Google Benchmark reporter writes one tidy row per finished point, with the metadata,
// to a file that is whole after every row; a point that stored nothing is an error row.
// Also: the sync study's schema, and the sample columns a per-unit study writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/point_cost.h"
#include "microbench/sync/sync_common.h"

namespace fs = std::filesystem;
using namespace pk;

static benchmark::BenchmarkReporter::Run fake_run(const std::string& name) {
  benchmark::BenchmarkReporter::Run r;
  r.run_name.function_name = name;
  r.run_type = benchmark::BenchmarkReporter::Run::RT_Iteration;
  r.iterations = 1;
  r.real_accumulated_time = 1e-6;
  r.cpu_accumulated_time = 1e-6;
  return r;
}

TEST(TidyCsvReporter, WritesOneRowPerRunWithMetadata) {
  const std::string path = (fs::temp_directory_path() / "pkbench_reporter_test.csv").string();
  TidyCsv csv(path, {"name", "status", "error", "gpu_name", "git_commit"});
  PointResults results;
  results.put("point/a", Row{{"name", "a"}, {"status", kOk}});
  TidyCsvReporter rep(csv, results, Row{{"gpu_name", "Test GPU"}, {"git_commit", "abc123"}});
  std::ostringstream quiet;
  rep.SetOutputStream(&quiet);
  rep.SetErrorStream(&quiet);
  rep.ReportRuns({fake_run("point/a")});
  rep.ReportRuns({fake_run("point/lost")});  // stored no row
  std::ifstream f(path);
  std::string header, a, lost, extra;
  std::getline(f, header);
  std::getline(f, a);
  std::getline(f, lost);
  EXPECT_FALSE(std::getline(f, extra));
  EXPECT_EQ(header, "name,status,error,gpu_name,git_commit");
  EXPECT_EQ(a, "a,ok,,Test GPU,abc123");
  EXPECT_EQ(lost, ",error,benchmark produced no result,Test GPU,abc123");
  EXPECT_EQ(rep.rows(), 2);
  EXPECT_EQ(rep.errors(), 1);
  fs::remove(path);
}

// With the cost columns in its schema, each row says what its point cost: the wall time since
// the previous report, what the point timed, the difference, and its named parts.
TEST(TidyCsvReporter, EachRowCarriesItsPointsCost) {
  const std::string path = (fs::temp_directory_path() / "pkbench_reporter_cost_test.csv").string();
  std::vector<std::string> cols = {"name", "status", "error"};
  for (const auto& c : point_cost_columns()) cols.push_back(c);
  TidyCsv csv(path, cols);
  PointResults results;
  point_cost::timed(99);  // before the reporter's construction: no point's
  point_cost::phase("study-setup", 50);
  TidyCsvReporter rep(csv, results, Row{});
  std::ostringstream quiet;
  rep.SetOutputStream(&quiet);
  rep.SetErrorStream(&quiet);
  results.put("p/a", Row{{"name", "a"}, {"status", kOk}});
  point_cost::timed(0.25);
  point_cost::phase("verify", 0.5);
  rep.ReportRuns({fake_run("p/a")});
  results.put("p/b", Row{{"name", "b"}, {"status", kOk}});
  rep.ReportRuns({fake_run("p/b")});
  ASSERT_EQ(csv.rows().size(), 2u);
  auto at = [&](size_t r, const std::string& c) {
    return csv.rows()[r][std::find(cols.begin(), cols.end(), c) - cols.begin()];
  };
  EXPECT_EQ(at(0, "timed_ms"), "0.25");
  EXPECT_GE(std::stod(at(0, "wall_ms")), 0.0);
  EXPECT_NE(at(0, "harness_phases").find("verify:0.5"), std::string::npos) << at(0, "harness_phases");
  EXPECT_EQ(at(0, "harness_phases").find("study-setup"), std::string::npos) << at(0, "harness_phases");
  // harness = wall - timed, as written (4 significant digits each).
  const double wall = std::stod(at(0, "wall_ms"));
  EXPECT_NEAR(std::stod(at(0, "harness_ms")), std::max(0.0, wall - 0.25), 1e-3 * (1 + wall));
  // The first row's console and CSV time is the second point's (`report`); nothing timed there.
  EXPECT_EQ(at(1, "timed_ms"), "0");
  EXPECT_NE(at(1, "harness_phases").find("report:"), std::string::npos) << at(1, "harness_phases");
  EXPECT_EQ(at(1, "harness_ms"), at(1, "wall_ms"));
  fs::remove(path);
}

// A sync point's timed work: its recorded samples, each the mean of ops_per_sample operations.
TEST(SyncTimed, SamplesTimesTheirOperations) {
  sync::LatencyResult r;
  EXPECT_EQ(sync::timed_ms(r), 0.0);
  r.ns = {1000, 2000, 3000};
  EXPECT_DOUBLE_EQ(sync::timed_ms(r), 0.006);
  r.ops_per_sample = 10;
  EXPECT_DOUBLE_EQ(sync::timed_ms(r), 0.06);
}

TEST(SyncSchema, HasTheIssuesColumnsAndMetadata) {
  const auto& c = sync::sync_columns();
  std::set<std::string> s(c.begin(), c.end());
  EXPECT_EQ(s.size(), c.size());
  for (const char* need : {"level", "primitive", "scope", "semantics", "participants", "one_way_ns", "round_trip_ns",
                           "samples", "spread_ns", "clock_source", "clock_resolution_ns", "status", "error"})
    EXPECT_TRUE(s.count(need)) << need;
  for (const auto& m : metadata_columns()) EXPECT_TRUE(s.count(m)) << m;
}

// A per-unit study's columns: the operation's median and the per-unit quantiles, both in us,
// from samples in ms; statistics already in us are written unscaled.
TEST(SampleColumns, PerUnitTimesDivideEachSampleByTheUnits) {
  Row row;
  const SampleStats st = put_per_unit_times(row, {0.4, 0.2, 0.8, 0.6}, 7, 4, "us_per_kernel");
  EXPECT_EQ(row["iters_per_sample"], "7");
  EXPECT_EQ(row["samples"], "4");
  EXPECT_EQ(row["op_us_median"], "500");
  EXPECT_EQ(row["us_per_kernel_median"], "125");
  EXPECT_EQ(row["us_per_kernel_min"], "50");
  EXPECT_EQ(row["us_per_kernel_p10"], fmt_num(quantile({50, 100, 150, 200}, 0.1)));
  EXPECT_EQ(row["us_per_kernel_p90"], fmt_num(quantile({50, 100, 150, 200}, 0.9)));
  EXPECT_DOUBLE_EQ(st.median, 0.125);  // per unit, in ms
  Row us;
  put_us_quantiles(us, "time_us", summarize({3, 1, 2}), 1.0);
  EXPECT_EQ(us["time_us_median"], "2");
  EXPECT_EQ(us["time_us_min"], "1");
  EXPECT_THROW(put_per_unit_times(row, {}, 1, 1, "x"), std::invalid_argument);
}
