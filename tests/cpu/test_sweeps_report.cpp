// REPORT.md from the committed results: every section, the paper's claims beside both
// machines, the targets.
#include <gtest/gtest.h>

#include "sweeps/report.h"
#include "sweeps_test_util.h"

using namespace pk::sweeps;
using namespace pk::sweeps::testing;

TEST(SweepsReport, H200BesideH100) {
  const ResultsFolder h200 = load_results(source_dir() + "/results/h200x2");
  const ResultsFolder h100 = load_results(source_dir() + "/results/h100x1");
  EXPECT_EQ(h200.machine_key(), "h200x2");
  EXPECT_EQ(h100.machine_key(), "h100x1");
  EXPECT_TRUE(h200.transfer.has_value());
  EXPECT_FALSE(h100.transfer.has_value());
  EXPECT_TRUE(h100.gemm.has_value());
  EXPECT_EQ(h200.peer_modes.size(), 3u);
  EXPECT_DOUBLE_EQ(h200.transfer_elapsed_s, 70);
  const std::string md = report_markdown(h200, &h100, "pkbench_report results/h200x2 --other results/h100x1");
  for (const char* s : {"# pkbench report: h200x2", "## Environment", "18 NVLinks at 26.562 GB/s", "## Figures",
                        "![fig2_bandwidth_vs_message.png](fig2_bandwidth_vs_message.png)",
                        "## The paper's claims beside our numbers and h100x1's",
                        "| intra-SM synchronisation (mbarrier) | ~64 ns | 26 ns one-way | 26 ns one-way |",
                        "| copy engine: message size for > 80 % of the line rate | >= 256 MB | 64 MiB (push), 128 MiB (pull) | not measured |",
                        "## h200x2 beside h100x1", "## Transfer tuning table", "## Targets",
                        "= 0.941 | **missed** |", "90 % of its peak with 8 SMs | **met** |"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
}

TEST(SweepsReport, EveryTargetMetOrMissed) {
  const ResultsFolder h200 = load_results(source_dir() + "/results/h200x2");
  int met = 0, missed = 0;
  bool peer_transfer = false, peer_sync = false, wall = false;
  for (const auto& t : all_targets(h200)) {
    if (t.id.rfind("gemm.", 0) == 0) continue;  // results/h200x2/gemm/: checked below on the H100
    met += t.verdict == Verdict::met;
    missed += t.verdict == Verdict::missed;
    if (t.id == "peer_modes.transfer") {
      peer_transfer = true;
      EXPECT_EQ(t.verdict, Verdict::missed);  // three copy-engine rows outside 2 % (peer-modes/README.md)
      EXPECT_NE(t.note.find("ce pull bidir"), std::string::npos) << t.note;
    }
    if (t.id == "peer_modes.sync") {
      peer_sync = true;
      EXPECT_EQ(t.verdict, Verdict::met);
    }
    wall |= t.id == "transfer.wall_time" && t.verdict == Verdict::met;
  }
  EXPECT_TRUE(peer_transfer && peer_sync && wall);
  EXPECT_EQ(missed, 4);  // device/CE in three directions, peer-mode transfer
  EXPECT_EQ(met, 10);

  const ResultsFolder h100 = load_results(source_dir() + "/results/h100x1");
  const auto g = all_targets(h100);
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g[0].id, "gemm.vs_cublas");
  EXPECT_EQ(g[0].verdict, Verdict::met);
  EXPECT_NE(g[0].measured.find("= 1.030"), std::string::npos) << g[0].measured;  // c1, README: 1.030 (autotuned cuBLASLt)
  const std::string md = report_markdown(h100, &h200, "pkbench_report results/h100x1 --other results/h200x2");
  EXPECT_NE(md.find("transfer (one GPU: no peer to transfer to)"), std::string::npos) << md;
  EXPECT_NE(md.find("## GEMM"), std::string::npos);
}
