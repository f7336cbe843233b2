// REPORT.md from a results folder assembled from the committed fixtures (tests/fixtures/ and
// tests/fixtures/report/): every study present, every target listed with its baseline and
// that baseline's cross-check, the headline count over all of them. Never the live results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sweeps/report.h"
#include "tests/cpu/sweeps_test_util.h"

using namespace pk;
using namespace pk::sweeps;
using namespace pk::sweeps::testing;
namespace fs = std::filesystem;

namespace {

// A results folder holding every study: the per-study fixtures where scripts/run.sh writes
// them (<study>/<study>.csv), tests/fixtures/report/ as it is, and two peer modes of the transfer and sync fixtures.
std::string fixture_folder() {
  const std::string d = temp_dir("report_folder");
  fs::copy(fixture("report"), d, fs::copy_options::recursive);
  for (const char* s : {"transfer", "sync", "primitives"}) {
    fs::create_directories(d + "/" + s);
    fs::copy_file(fixture(std::string(s) + "_fixture.csv"), d + "/" + s + "/" + s + ".csv");
  }
  // The verdict tests read the collectives fixture at report/collectives.csv.
  fs::create_directories(d + "/collectives");
  fs::rename(d + "/collectives.csv", d + "/collectives/collectives.csv");
  for (const char* m : {"single", "ipc"}) {
    const std::string mode = d + "/transfer/peer-modes/" + m;
    fs::create_directories(mode);
    fs::copy_file(fixture("transfer_fixture.csv"), mode + "/transfer.csv");
    fs::copy_file(fixture("sync_fixture.csv"), mode + "/sync.csv");
  }
  return d;
}

}  // namespace

TEST(SweepsReport, EveryTargetOfEveryStudyListed) {
  const ResultsFolder f = load_results(fixture_folder());
  for (const char* s : {"transfer", "sync", "gemm", "fused", "collectives", "primitives"})
    ASSERT_NE(f.results(s), nullptr) << s;
  const auto targets = all_targets(f);
  const std::string md = report_markdown(f, nullptr, "pkbench_report FIXTURE");
  // The transfer study's wall time (transfer/timing.csv) reaches its target and the report.
  EXPECT_NE(md.find("The transfer study's wall time comes from transfer/timing.csv:"), std::string::npos) << md;
  // Every declared target appears with a verdict: none is left out of the report.
  for (const auto& spec : target_specs()) {
    bool found = false;
    for (const auto& t : targets) found |= t.id == spec.id;
    EXPECT_TRUE(found) << spec.id;
    EXPECT_NE(md.find("| " + spec.what + " " + spec.text() + " |"), std::string::npos) << spec.id;
  }
  int n = 0;
  for (const auto& t : targets) n += t.verdict != Verdict::info;
  EXPECT_NE(md.find(target_count_text(targets) + "."), std::string::npos);
  EXPECT_EQ(target_count_text(targets).rfind(std::to_string(n) + " targets: ", 0), 0u) << target_count_text(targets);
  for (const char* s : {"## Targets", "| baseline | baseline's cross-check | verdict |",
                        // a baseline off its tool: the verdict says so instead of met
                        "off by 12.0 % (nccl-tests 2.19.6 all_reduce_perf) | **baseline off its tool** |",
                        "with a baseline off its tool (no speedup claimed)",
                        // the fused best baseline at every shape, the copy-engine overlap included
                        "AG+GEMM N = 4096 inter_sm against ce_overlap: 0.840", "## Collectives (Figures 6, 15-17)",
                        "| nccl-tests method | all_reduce | bf16 | 2 | eager | 4 | 4 | 0 | 3 / 0 |", "| nccl-tests method | all_reduce | bf16 | 2 | graph | 4 | 4 | 0 | 2 / 1 |", "| primitives | `primitives/primitives.csv` |",
                        "| device time | all_reduce | bf16 | 2 | eager |", "up to 1.64x (ll vs nccl, 1 MiB, graph, nccl-tests method",
                        "## Fused GEMM + communication", "## GEMM", "## Transfer tuning table"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
  for (const char* s : {"the stricter one", "unchanged"}) EXPECT_EQ(md.find(s), std::string::npos) << s;
}

TEST(SweepsReport, BesideAnotherFolder) {
  const ResultsFolder f = load_results(fixture_folder());
  ResultsFolder g = load_results(fixture("report"));  // fused and GEMM only
  EXPECT_EQ(g.results("transfer"), nullptr);
  const std::string md = report_markdown(g, &f, "pkbench_report A --other B");
  EXPECT_NE(md.find("Not in this folder: transfer (no transfer/transfer.csv)"), std::string::npos) << md;
  EXPECT_NE(md.find("- transfer study: only " + f.machine_key() + " has it."), std::string::npos) << md;
}

// PyTorch's async TP merged into the fused rows (pkbench_torch_ref: ref_tool, ref_time_us) is a
// baseline of the report and of fused.vs_best_baseline: tests/fixtures/report_torch/ is
// tests/fixtures/report/'s fused CSV after the merge of PyTorch rows at N = 4096 (GEMM+RS
// 950 us, faster than every other baseline; AG+GEMM 1200 us, slower than ce_overlap's 840).
TEST(SweepsReport, PyTorchAsyncTpIsABaselineOfAnyKind) {
  const ResultsFolder f = load_results(fixture("report_torch"));
  ASSERT_NE(f.results("fused"), nullptr);
  const std::string md = report_markdown(f, nullptr, "pkbench_report FIXTURE");
  for (const char* s : {"Against PyTorch's async tensor parallelism",
                        "| GEMM+RS | 4096 | 4096x4096x2048 | 2 | 950.0 | 1000.0 (intra_sm) | 0.950 | pytorch_async_tp 950.0 |",
                        "| AG+GEMM | 4096 | 4096x2048x4096 | 2 | 1200.0 | 1000.0 (inter_sm) | 1.200 | ce_overlap 840.0 |",
                        "GEMM+RS N = 4096 0.950 against pytorch_async_tp"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
  // Without the merged columns (tests/fixtures/report/) there is no PyTorch table.
  EXPECT_EQ(report_markdown(load_results(fixture("report")), nullptr, "x").find("Against PyTorch"), std::string::npos);
}

// Where a CSV of the folder has the point-cost columns, the report says what each point cost
// the harness, per CSV; where none has them (every committed results folder before them), the
// report has no such section.
TEST(SweepsReport, HarnessCostPerPointWhereTheCsvsSayIt) {
  const std::string d = fixture_folder();
  EXPECT_TRUE(load_results(d).point_costs.empty());
  EXPECT_EQ(report_markdown(load_results(d), nullptr, "x").find("## Harness cost per point"), std::string::npos);
  fs::create_directories(d + "/collectives/virtual");
  {
    std::ofstream f(d + "/collectives/virtual/collectives_virtual.csv");
    f << "study,status,peer_mode,gpu_count,wall_ms,timed_ms,harness_ms,harness_phases\n"
      << "collectives,ok,virtual,4,14,4,10,setup:2 warm-up:3 samples:5 other:4\n"
      << "collectives,ok,virtual,4,26,4,22,setup:4 warm-up:3 samples:5 other:14\n";
  }
  const ResultsFolder f = load_results(d);
  ASSERT_EQ(f.point_costs.size(), 1u);
  EXPECT_EQ(f.point_costs[0].csv, "collectives/virtual/collectives_virtual.csv");
  const std::string md = report_markdown(f, nullptr, "x");
  for (const char* s : {"## Harness cost per point",
                        "| `collectives/virtual/collectives_virtual.csv` | collectives | virtual | 4 | 2 | 16 | 20.8 | 20 | 4 | "
                        "other 9, samples 5, setup 3, warm-up 3 |"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
  EXPECT_LT(md.find("## Harness cost per point"), md.find("## Targets"));
}
