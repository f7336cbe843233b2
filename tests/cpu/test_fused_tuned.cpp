// CPU tests of the fused study's `tuned` schedule (microbench/fused/fused_tuned.h) and its
// summary (microbench/fused/fused_analysis.h): what an in-memory table answers per (operator, shape, ranks)
// through pkbench/tuning.h, the refusals (a point skipped with the reason; a table refused
// before any GPU work), the virtual-rank machine key, and the Tuned section's ratios on
// tests/fixtures/fused_tuned_fixture.csv.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/cpu/fused_test_util.h"
#include "microbench/fused/fused_tuned.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/fused/fused_analysis.h"
#include "sweeps/tuning_writers.h"

using namespace pk;
using namespace pk::fused;
namespace tn = pkbench::tuning;

namespace {

std::string fixture(const std::string& name) { return std::string(PKBENCH_FIXTURE_DIR) + "/" + name; }

const std::string kMachine = tn::virtual_machine_key("testx1", 2);

std::string row(const char* op, const char* shape_mnk, const char* impl, int comm_sms, int line) {
  std::string m = shape_mnk, n, k;
  n = m.substr(m.find(',') + 1);
  m = m.substr(0, m.find(','));
  k = n.substr(n.find(',') + 1);
  n = n.substr(0, n.find(','));
  const std::string overlap = std::string(impl) == "ce_overlap" ? "baseline" : impl;
  return "{\"machine\": \"" + kMachine + "\", \"op\": \"" + op + "\", \"gpus\": 2, \"m\": " + m + ", \"n\": " + n +
         ", \"k\": " + k + ", \"overlap\": \"" + overlap + "\", \"impl\": \"" + impl +
         "\", \"comm_sms\": " + std::to_string(comm_sms) + ", \"time_us\": 10.0, \"source\": \"t.csv:" +
         std::to_string(line) + "\"}";
}

// The table a program would load: gemm_rs measured at two shapes (inter_sm 8 SMs, intra_sm);
// answers this build cannot run for the other operators.
std::string table_json() {
  return "{\"schema_version\": 1, \"table\": \"fused\", \"peer_modes\": [\"virtual\"], \"rows\": [" +
         row("gemm_rs", "2048,2048,1024", "inter_sm", 8, 2) + ", " + row("gemm_rs", "4096,4096,2048", "intra_sm", 0, 3) +
         ", " + row("ag_gemm", "2048,1024,2048", "ce_overlap", 0, 4) + ", " + row("gemm_ar", "2048,2048,1024", "inter_sm", 99, 5) +
         ", " + row("gemm_ar", "4096,4096,2048", "intra_sm", 4, 6) + "]}";
}

tn::Tuner tuner() {
  tn::Tuner t(kMachine);
  t.load_json(table_json(), "mem.json");
  return t;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / ("pkbench_fused_tuned_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST(FusedTuned, RunsWhatTheTableAnswers) {
  const tn::Tuner t = tuner();
  const Point p = tuned_point(t, "mem.json", Op::gemm_rs, Shape{2048, 2048, 1024}, 0, 2);
  EXPECT_EQ(p.schedule, "tuned");
  ASSERT_TRUE(p.tuning);
  EXPECT_EQ(p.tuning->refused, "");
  EXPECT_EQ(p.tuning->answer,
            "overlap=inter_sm impl=inter_sm comm_sms=8 basis=measured from=t.csv:2 table=mem.json machine=" + kMachine +
                " default=inter_sm/comm_sms:16");
  EXPECT_EQ(p.name(), "fused/gemm_rs/tuned/2048x2048x1024/comm_sms:8");
  const Point run = point_run(p);
  EXPECT_EQ(run.name(), "fused/gemm_rs/inter_sm/2048x2048x1024/comm_sms:8");
  EXPECT_FALSE(run.tuning);
  // Intra-SM takes no knob; between the measured shapes the nearest on a log2 scale answers.
  const Point q = tuned_point(t, "mem.json", Op::gemm_rs, Shape{4096, 4096, 1536}, 0, 2);
  EXPECT_EQ(point_run(q).name(), "fused/gemm_rs/intra_sm/4096x4096x1536");
  EXPECT_NE(q.tuning->answer.find("basis=interpolated from=t.csv:3"), std::string::npos) << q.tuning->answer;
  EXPECT_NE(q.tuning->answer.find("default=intra_sm"), std::string::npos);
  // A point that is not tuned runs as it is.
  const Point plain{Op::gemm_rs, "intra_sm", Shape{256, 256, 64}, 0, {}, {}};
  EXPECT_EQ(point_run(plain).name(), plain.name());
}

TEST(FusedTuned, RefusedAnswersAreSkippedPointsWithTheReason) {
  const tn::Tuner t = tuner();
  auto refused = [&](Op op, Shape s, int world) {
    const Point p = tuned_point(t, "mem.json", op, s, 0, world);
    EXPECT_EQ(point_run(p).schedule, "tuned");  // nothing to run
    EXPECT_TRUE(p.knobs.empty());
    return p.tuning->refused;
  };
  EXPECT_NE(refused(Op::gemm_rs, {8192, 8192, 4096}, 2).find("outside the measured shapes"), std::string::npos);
  EXPECT_NE(refused(Op::gemm_rs, {2048, 2048, 1024}, 4).find("no gemm_rs rows on 4 GPUs"), std::string::npos);
  EXPECT_NE(refused(Op::ag_gemm, {2048, 1024, 2048}, 2).find("answers ce_overlap: no fused schedule"), std::string::npos);
  EXPECT_NE(refused(Op::gemm_ar, {2048, 2048, 1024}, 2).find("comm_sms=99, outside 1..64"), std::string::npos);
  EXPECT_NE(refused(Op::gemm_ar, {4096, 4096, 2048}, 2).find("comm_sms=4, a knob it does not take"), std::string::npos);
  for (const auto& why : {refused(Op::gemm_rs, {8192, 8192, 4096}, 2)})
    EXPECT_EQ(why.rfind("tuning table mem.json (" + kMachine + "): ", 0), 0u) << why;
}

TEST(FusedTuned, ATunedPointFollowsEachShape) {
  GridSpec g;
  g.ops = {Op::gemm_rs};
  g.schedules = {"intra_sm", "inter_sm"};
  g.shapes = {Shape{2048, 2048, 1024}, Shape{4096, 4096, 2048}};
  g.knob_values["comm_sms"] = {8, 16};
  const std::vector<Point> pts = with_tuned_points(build_points(g, 2), tuner(), "mem.json", 2);
  std::vector<std::string> names;
  for (const auto& p : pts) names.push_back(p.name());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "fused/gemm_rs/intra_sm/2048x2048x1024", "fused/gemm_rs/inter_sm/2048x2048x1024/comm_sms:8",
                       "fused/gemm_rs/inter_sm/2048x2048x1024/comm_sms:16", "fused/gemm_rs/tuned/2048x2048x1024/comm_sms:8",
                       "fused/gemm_rs/intra_sm/4096x4096x2048", "fused/gemm_rs/inter_sm/4096x4096x2048/comm_sms:8",
                       "fused/gemm_rs/inter_sm/4096x4096x2048/comm_sms:16", "fused/gemm_rs/tuned/4096x4096x2048"}));
}

// The default a tuned row is compared with is measured by every preset's grid: each untuned
// value is in its schedule's default list.
TEST(FusedTuned, UntunedValuesAreInTheDefaultGrid) {
  int declared = 0;
  for (const Schedule& s : schedules())
    for (const KnobUse& u : s.knobs)
      if (u.untuned) {
        ++declared;
        const std::vector<int> v = parse_knob_list(*u.knob, u.default_list);
        EXPECT_NE(std::find(v.begin(), v.end(), u.untuned), v.end()) << s.name << " " << u.knob->name;
      }
  EXPECT_GE(declared, 1) << "inter_sm's comm_sms";
}

TEST(FusedTuned, TheFlagRefusesABadTableBeforeAnyGpuWork) {
  EXPECT_NE(refusal([] { check_tuning_table("/nonexistent/fused_tuning.json"); }).find("--tuning-table=/nonexistent/fused_tuning.json: "),
            std::string::npos);
  EXPECT_NE(refusal([] { check_tuning_table(fixture("tuning_schema2.json")); }).find("schema_version 2"), std::string::npos);
  const std::string coll = temp_file("coll.json", "{\"schema_version\": 1, \"table\": \"collectives\", \"rows\": []}");
  EXPECT_NE(refusal([&] { check_tuning_table(coll); }).find("a collectives table, not the fused one"), std::string::npos);
  const std::string fused = temp_file("fused.json", table_json());
  EXPECT_EQ(refusal([&] { check_tuning_table(fused); }), "");
  // The machine, once the GPUs are known: the real GPU never reads virtual ranks' rows, and
  // other virtual ranks find none of theirs.
  EXPECT_EQ(refusal([&] { load_tuning_table(fused, kMachine); }), "");
  EXPECT_NE(refusal([&] { load_tuning_table(fused, "testx1"); }).find("never tuning input for a real machine"),
            std::string::npos);
  EXPECT_NE(refusal([&] { load_tuning_table(fused, tn::virtual_machine_key("testx1", 4)); }).find("--tuning-table="),
            std::string::npos);
  EXPECT_EQ(tuning_machine("NVIDIA H100 80GB HBM3", 1, true, 2), "h100x1-virtual2");
  EXPECT_EQ(tuning_machine("NVIDIA H200", 2, false, 2), "h200x2");
  std::remove(coll.c_str());
  std::remove(fused.c_str());
}

// The summary: tuned 96 us against the fastest fused row (inter_sm 8 SMs, 95 us; the faster
// baseline is never an answer, so never the best) and the default (inter_sm 16 SMs, 105 us);
// a refused point listed with its reason, not counted.
TEST(FusedTuned, SummaryRatiosOnAFixture) {
  const std::vector<pk::fused::FusedTuned> pts = pk::fused::fused_tuned_points(fixture("fused_tuned_fixture.csv"));
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].m, 2048);
  EXPECT_DOUBLE_EQ(pts[0].tuned_us, 96);
  EXPECT_DOUBLE_EQ(pts[0].best_us, 95);
  EXPECT_EQ(pts[0].best, "inter_sm comm_sms=8");
  EXPECT_DOUBLE_EQ(pts[0].default_us, 105);
  EXPECT_EQ(pts[0].default_config, "inter_sm comm_sms=16");
  EXPECT_NEAR(pts[0].of_best(), 95.0 / 96, 1e-12);
  EXPECT_NEAR(pts[0].over_default(), 105.0 / 96, 1e-12);
  EXPECT_EQ(pts[1].tuned_us, 0);
  EXPECT_DOUBLE_EQ(pts[1].best_us, 300);
  EXPECT_EQ(pts[1].answer.rfind("skipped: tuning table t.json", 0), 0u) << pts[1].answer;
  const std::string md = pk::fused::fused_summary_markdown(fixture("fused_tuned_fixture.csv"));
  EXPECT_NE(md.find("1 of 1 measured points reach the target, worst 0.990"), std::string::npos) << md;
  EXPECT_NE(md.find("| gemm_rs | 2048x2048x1024 | 2 | overlap=inter_sm"), std::string::npos) << md;
  // The table made from the same virtual-rank CSV names its own machine and never chooses
  // the tuned row.
  const pk::TuningTable tt = pk::fused::fused_tuning(fixture("fused_tuned_fixture.csv"));
  ASSERT_FALSE(tt.rows.empty());
  EXPECT_EQ(pk::cell_text(tt.at(0, "machine")), "fixturex1-virtual2");
  EXPECT_EQ(pk::cell_text(tt.at(0, "impl")), "inter_sm");
}
