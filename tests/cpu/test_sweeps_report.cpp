// REPORT.md from the committed results: every section, the paper's claims beside both
// machines, the targets.
#include <gtest/gtest.h>

#include <iterator>
#include <map>

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
                        "= 0.941 | **missed** |", "90 % of its peak with 8 SMs | **met** |",
                        // The collectives and fused studies' subfolders (results/h200x2/{collectives,fused}/).
                        "| collectives | `collectives/collectives_mpi.csv` | 542 (530 ok) |",
                        "## Collectives (Figures 6, 15-17)", "| all_reduce | bf16 | 2 | graph | 10 | 10 | 2.00x (64 KiB, ll) |",
                        "![collectives/fig6_all_reduce_graph.png](collectives/fig6_all_reduce_graph.png)",
                        "## Fused GEMM + communication (Figures 4, 5, 7-9, Table 3)",
                        "| GEMM+RS | 4096 | 4096x4096x2048 | 45 % | **1.469** (intra_sm) | **1.469** | 1.179 (24) | intra_sm |",
                        "| AG+GEMM | 4096 | 4096x2048x4096 | 43 % | **1.297** (inter_sm) | 0.421 | **1.297** (8) |",
                        "| GEMM+AR | 8192 | 8192x8192x4096 | 32 % | **1.265** (intra_sm) |",
                        "| 16384 x 16384 | 4096 | 3.219 | 4.001 | 3.466 | 7.1 % |",
                        "| GEMM+RS: intra-SM over inter-SM | 1.2x | 1.25x (N = 4096), 1.08x (N = 8192), 1.03x (N = 16384) |",
                        "up to 1.47x (GEMM+RS intra_sm, N = 4096", "<= 5 % from K = 8192",
                        "![fused/fig7_ag_gemm.png](fused/fig7_ag_gemm.png)", "- fused study: only h200x2 has it."})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
  EXPECT_EQ(md.find("see fused_tuning.csv"), std::string::npos);
}

// results/h200x2/fused/README.md's table: the best fused kernel over cuBLAS then NCCL per
// operator and N, each schedule at its best comm SMs, read from the committed fused.csv.
TEST(SweepsReport, FusedSpeedupsAsTheReadmeQuotes) {
  const FusedSummary f = fused_summary(source_dir() + "/results/h200x2/fused/fused.csv");
  EXPECT_EQ(f.rows, 120u);
  EXPECT_EQ(f.git_commit, "d2df31a");
  struct Want {
    const char* op;
    int64_t n;
    double best, intra, inter;
    int64_t inter_sms;
    const char* schedule;
    int share_pct;
  };
  const Want want[] = {{"gemm_rs", 4096, 1.469, 1.469, 1.179, 24, "intra_sm", 45},
                       {"gemm_rs", 8192, 1.166, 1.166, 1.075, 16, "intra_sm", 22},
                       {"gemm_rs", 16384, 1.049, 1.049, 1.014, 8, "intra_sm", 13},
                       {"ag_gemm", 4096, 1.297, 0.421, 1.297, 8, "inter_sm", 43},
                       {"ag_gemm", 8192, 1.202, 0.305, 1.202, 4, "inter_sm", 21},
                       {"ag_gemm", 16384, 1.072, 0.276, 1.072, 4, "inter_sm", 9},
                       {"gemm_ar", 4096, 1.393, 1.393, 1.288, 24, "intra_sm", 56},
                       {"gemm_ar", 8192, 1.265, 1.265, 1.212, 16, "intra_sm", 32},
                       {"gemm_ar", 16384, 1.084, 1.084, 1.048, 8, "intra_sm", 15}};
  ASSERT_EQ(f.shapes.size(), std::size(want));
  for (const Want& w : want) {
    const FusedShape* s = nullptr;
    for (const auto& x : f.shapes)
      if (x.op == w.op && x.size_n == w.n) s = &x;
    ASSERT_NE(s, nullptr) << w.op << " " << w.n;
    EXPECT_NEAR(s->speedup(s->best_fused_us()), w.best, 5e-4) << w.op << " " << w.n;
    EXPECT_NEAR(s->speedup(s->intra_us), w.intra, 5e-4) << w.op << " " << w.n;
    EXPECT_NEAR(s->speedup(s->inter_us), w.inter, 5e-4) << w.op << " " << w.n;
    EXPECT_EQ(s->inter_comm_sms, w.inter_sms) << w.op << " " << w.n;
    EXPECT_STREQ(s->best_fused(), w.schedule) << w.op << " " << w.n;
    EXPECT_NEAR(100 * s->comm_share, w.share_pct, 0.5) << w.op << " " << w.n;
  }
  const auto k = fused_k_sweep(source_dir() + "/results/h200x2/fused/fused_table3.csv");
  ASSERT_EQ(k.size(), 5u);
  EXPECT_EQ(k[0].k, 512);
  EXPECT_NEAR(k[3].intra_ratio, 0.071, 5e-4);  // README: 7.1 % at K = 4096
  EXPECT_NEAR(k[4].intra_ratio, 0.004, 5e-4);  // 0.4 % at 8192
  EXPECT_NEAR(k[3].inter_ratio, 0.155, 5e-4);  // inter-SM 15.5 % (16 comm SMs)
}

TEST(SweepsReport, EveryTargetMetOrMissed) {
  const ResultsFolder h200 = load_results(source_dir() + "/results/h200x2");
  int met = 0, missed = 0;
  bool peer_transfer = false, peer_sync = false, wall = false;
  std::map<std::string, const TargetResult*> fused;
  const auto h200_targets = all_targets(h200);
  for (const auto& t : h200_targets) {
    if (t.id.rfind("gemm.", 0) == 0) continue;  // results/h200x2/gemm/: checked below on the H100
    if (t.id.rfind("fused.", 0) == 0) {         // results/h200x2/fused/: checked below
      fused[t.id] = &t;
      continue;
    }
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
  // The fused study's targets as results/h200x2/fused/README.md judges them.
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_EQ(fused["fused.vs_cublas_nccl"]->verdict, Verdict::met);
  EXPECT_NE(fused["fused.vs_cublas_nccl"]->measured.find("GEMM+AR N = 8192 intra_sm 1.265x"), std::string::npos)
      << fused["fused.vs_cublas_nccl"]->measured;
  EXPECT_EQ(fused["fused.vs_best_baseline"]->verdict, Verdict::met);
  EXPECT_NE(fused["fused.vs_best_baseline"]->measured.find("AG+GEMM N = 8192 inter_sm against ce_overlap: 0.993"),
            std::string::npos)
      << fused["fused.vs_best_baseline"]->measured;
  EXPECT_EQ(fused["fused.hidden_k"]->verdict, Verdict::missed);  // intra-SM 7.1 % at K = 4096
  EXPECT_NE(fused["fused.hidden_k"]->measured.find("K = 4096: 7.1 % (intra_sm)"), std::string::npos)
      << fused["fused.hidden_k"]->measured;

  const ResultsFolder h100 = load_results(source_dir() + "/results/h100x1");
  const auto g = all_targets(h100);
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g[0].id, "gemm.vs_cublas");
  EXPECT_EQ(g[0].verdict, Verdict::met);
  EXPECT_NE(g[0].measured.find("= 1.030"), std::string::npos) << g[0].measured;  // c1, README: 1.030 (autotuned cuBLASLt)
  const std::string md = report_markdown(h100, &h200, "pkbench_report results/h100x1 --other results/h200x2");
  EXPECT_NE(md.find("transfer (one GPU: no peer to transfer to)"), std::string::npos) << md;
  EXPECT_NE(md.find("fused kernels (Figures 4, 5, 7-9, Table 3: not measured here)"), std::string::npos) << md;
  EXPECT_NE(md.find("- fused study: only h200x2 has it."), std::string::npos) << md;
  EXPECT_NE(md.find("## GEMM"), std::string::npos);
}
