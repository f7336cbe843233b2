// Sequence-parallel study, plain C++ (label cpu): the ring's shape checks, schedules, points,
// presets, the computed link bytes, the inputs' values (exact in bf16), the columns; the
// analysis (best schedule and split per shape, the tuning rule, the targets, the Ulysses rows).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "kernels/seqpar/ring_values.cuh"
#include "microbench/collectives/coll_schema.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/seqpar/seqpar_problem.h"
#include "microbench/seqpar/seqpar_summary.h"

using namespace pk;
using namespace pk::seqpar;

TEST(SeqparShape, RefusesWhatTheStandInCannotRun) {
  RingShape s;
  s.seq = 1024;
  EXPECT_NO_THROW(check_shape(s));
  RingShape bad = s;
  bad.seq = 1000;
  EXPECT_THROW(check_shape(bad), ArgError);
  bad = s;
  bad.head_dim = 96;
  EXPECT_THROW(check_shape(bad), ArgError);
  bad = s;
  bad.ranks = 9;
  EXPECT_THROW(check_shape(bad), ArgError);
  bad = s;
  bad.ranks = 1;
  EXPECT_THROW(check_shape(bad), ArgError);
  EXPECT_EQ(s.block_bytes(), uint64_t(16) * 16 * 2 * 1024 * 128 * 2);
  EXPECT_DOUBLE_EQ(s.step_flops(), 4.0 * 256 * 1024.0 * 1024 * 128);
}

TEST(SeqparPoints, DefaultPresetHasEverySchedulePerShapeAndTheSmSplitForInterSm) {
  const std::vector<Point> pts = plan_points(preset("default"), {});
  std::set<std::string> impls;
  int inter = 0;
  for (const Point& p : pts) {
    impls.insert(p.impl);
    if (p.impl == "inter_sm") ++inter;
    else EXPECT_EQ(p.sms, 0) << p.name();
  }
  EXPECT_EQ(impls.size(), impl_infos().size());
  EXPECT_EQ(inter, 7 * 4);  // S 256..16K (7 sizes) x sms auto,8,16,32
  EXPECT_EQ(pts.front().name(), "seqpar/ring_kv/compute_only/H16/S256");
  bool named = false;
  for (const Point& p : pts) named |= p.name() == "seqpar/ring_kv/inter_sm[sms=16]/H16/S1024";
  EXPECT_TRUE(named);
}

TEST(SeqparPoints, FlagsReplaceThePresetsFieldsAndBadValuesNameTheFlag) {
  GridText f;
  f.impls = "inter_sm,intra_sm";
  f.seqs = "512";
  f.heads = "8,32";
  f.sms = "4,auto";
  const std::vector<Point> pts = plan_points(preset("smoke"), f);
  ASSERT_EQ(pts.size(), 2u * (2 + 1));
  EXPECT_EQ(pts[0].name(), "seqpar/ring_kv/inter_sm[sms=4]/H8/S512");
  EXPECT_EQ(pts[1].name(), "seqpar/ring_kv/inter_sm/H8/S512");
  EXPECT_EQ(pts[2].name(), "seqpar/ring_kv/intra_sm/H8/S512");
  auto refused = [](GridText g, const std::string& flag) {
    try {
      plan_points(preset("smoke"), g);
    } catch (const ArgError& e) {
      return std::string(e.what()).find(flag) != std::string::npos;
    }
    return false;
  };
  GridText g;
  g.seqs = "300";
  EXPECT_TRUE(refused(g, "--seqs"));
  g = {};
  g.impls = "ring";
  EXPECT_TRUE(refused(g, "--impls"));
  g = {};
  g.sms = "0";
  EXPECT_TRUE(refused(g, "--sms"));
  g = {};
  g.heads = "0";
  EXPECT_TRUE(refused(g, "--heads"));
  EXPECT_THROW(preset("huge"), ArgError);
}

TEST(SeqparPoints, ThePlannedPassIsTheComputeAndTheTransfersOfItsSchedule) {
  RingShape s;
  s.seq = 4096;
  s.ranks = 4;
  const double compute = 4 * s.step_flops() / 600e12 * 1e3, moves = 3 * double(s.block_bytes()) / 150e9 * 1e3;
  EXPECT_DOUBLE_EQ(planned_pass_ms(s, "compute_only"), compute);
  EXPECT_DOUBLE_EQ(planned_pass_ms(s, "copy_only"), moves);
  EXPECT_DOUBLE_EQ(planned_pass_ms(s, "sequential"), compute + moves);
}

TEST(SeqparLinks, IntraSmReadsEachTileOncePerQueryTileStagingOnce) {
  EXPECT_DOUBLE_EQ(link_bytes_per_useful("intra_sm", 4096), 32.0);
  EXPECT_DOUBLE_EQ(link_bytes_per_useful("inter_sm", 4096), 1.0);
  EXPECT_DOUBLE_EQ(link_bytes_per_useful("nccl_side", 256), 1.0);
  EXPECT_DOUBLE_EQ(link_bytes_per_useful("compute_only", 256), 0.0);
  EXPECT_NE(link_bytes_basis("intra_sm").find("computed"), std::string::npos);
  EXPECT_EQ(auto_sms(132), 16);
  EXPECT_EQ(auto_sms(16), 4);
}

TEST(SeqparValues, AreMultiplesOfOneSixtyFourthInRangeAndExactInBf16) {
  std::set<int> seen;
  for (uint64_t i = 0; i < 20000; ++i) {
    const uint16_t b = value_bits(42, i);
    const uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    const float k = f * 64;
    ASSERT_EQ(k, float(int(k))) << i;
    ASSERT_GE(k, -64.0f);
    ASSERT_LE(k, 63.0f);
    seen.insert(int(k));
  }
  EXPECT_EQ(seen.size(), 128u);  // every value drawn
  int differ = 0;
  for (uint64_t i = 0; i < 64; ++i) differ += value_bits(1, i) != value_bits(2, i);
  EXPECT_GT(differ, 32);  // another seed, other values
}

TEST(SeqparColumns, HaveTheRowsTheIssueAsksFor) {
  const auto& c = seqpar_columns();
  for (const char* want : {"step_us_median", "link_bytes_per_useful", "link_bytes_basis", "l2_hit_rate", "sms", "compute_sms",
                           "verified", "wrong_kv", "wrong_out", "seq_per_rank", "heads"})
    EXPECT_NE(std::find(c.begin(), c.end(), want), c.end()) << want;
}

// ---- analysis ----------------------------------------------------------------------------

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pkbench_seqpar_" + std::to_string(::getpid()) + "_" + name)).string();
}

struct FakeRing {
  std::string impl;
  int seq, sms;
  double op_us;
  std::string status = "ok";
};

std::string write_ring(const std::vector<FakeRing>& rows, const std::string& peer_mode = "ipc") {
  const std::string path = temp_path("ring.csv");
  TidyCsv csv(path, seqpar_columns());
  for (const FakeRing& f : rows) {
    Row r{{"study", "seqpar"}, {"op", "ring_kv"}, {"impl", f.impl}, {"family", f.impl == "nccl_side" ? "nccl" : "pk"},
          {"seq_per_rank", std::to_string(f.seq)}, {"heads", "16"}, {"ranks", "4"}, {"sms", f.sms ? std::to_string(f.sms) : ""},
          {"status", f.status}, {"verified", f.status == "ok" ? "yes" : "no"}, {"peer_mode", peer_mode},
          {"gpu_name", "NVIDIA H100 80GB HBM3"}, {"gpu_count", "4"}, {"host", "node"}};
    r["op_us_median"] = fmt_num(f.op_us);
    r["step_us_median"] = fmt_num(f.op_us / 4);
    r["link_bytes_per_useful"] = fmt_num(link_bytes_per_useful(f.impl, f.seq));
    if (f.impl == "intra_sm" && f.seq == 1024) r["link_bytes_per_useful_nvml"] = "7.5";
    csv.append(r);
  }
  csv.flush();
  return path;
}

// S = 1024: compute 400 per pass, a pull 60 (x3 = 180 per pass: compute bound); inter_sm best at
// 16 SMs hides all but 5 us of 180. S = 256: compute 40, transfer 60 (transfer bound): intra_sm
// fastest there; inter_sm beats intra_sm from S = 1024 on.
const std::vector<FakeRing> kRing = {
    {"compute_only", 256, 0, 40},   {"copy_only", 256, 0, 60},     {"sequential", 256, 0, 100},  {"nccl_side", 256, 0, 90},
    {"inter_sm", 256, 8, 80},       {"inter_sm", 256, 16, 75},     {"intra_sm", 256, 0, 70},     {"compute_only", 1024, 0, 400},
    {"copy_only", 1024, 0, 180},    {"sequential", 1024, 0, 580},  {"nccl_side", 1024, 0, 450},  {"inter_sm", 1024, 8, 430},
    {"inter_sm", 1024, 16, 405},    {"intra_sm", 1024, 0, 520},    {"inter_sm", 1024, 32, 300, "error"},
};

}  // namespace

TEST(SeqparSummary, RingResultsPickTheBestScheduleAndSplitPerShape) {
  const auto ring = ring_results(read_ring_csv(write_ring(kRing)));
  ASSERT_EQ(ring.size(), 2u);
  EXPECT_EQ(ring[0].seq, 256);
  EXPECT_EQ(ring[0].best, "intra_sm");
  EXPECT_FALSE(ring[0].compute_bound());  // 40 / 4 < 60 / 3
  EXPECT_EQ(ring[1].best, "inter_sm");
  EXPECT_EQ(ring[1].best_inter_sms, 16);  // the error row at 32 SMs is not a result
  EXPECT_TRUE(ring[1].compute_bound());
  EXPECT_NEAR(ring[1].hidden(), 1 - 5.0 / 180, 1e-12);
  EXPECT_DOUBLE_EQ(ring[1].intra_link_per_useful, 8.0);
  EXPECT_DOUBLE_EQ(ring[1].intra_link_nvml, 7.5);  // NVML's counter where the row has it
  EXPECT_LT(ring[0].intra_link_nvml, 0);           // not read
  const std::string md = summary_markdown(read_ring_csv(write_ring(kRing)), ring, {});
  EXPECT_NE(md.find("| 4 | 16 | 1024 | 8 | 7.5 | 1 | not read |"), std::string::npos) << md;
}

TEST(SeqparSummary, TheTuningRuleAnswersTheNearestMeasuredSOfTheSameRanksAndHeads) {
  const auto ring = ring_results(read_ring_csv(write_ring(kRing)));
  RingChoice c = choose_seqpar(ring, 4096, 16, 4);
  EXPECT_EQ(c.schedule, "inter_sm");
  EXPECT_EQ(c.sms, 16);
  c = choose_seqpar(ring, 512, 16, 4);  // as near 256 as 1024 in log scale: the smaller
  EXPECT_EQ(c.schedule, "intra_sm");
  EXPECT_EQ(c.sms, 0);
  EXPECT_TRUE(choose_seqpar(ring, 1024, 8, 4).schedule.empty());
  EXPECT_TRUE(choose_seqpar(ring, 1024, 16, 2).schedule.empty());
  const std::string csv = tuning_csv(ring);
  EXPECT_NE(csv.find("4,16,1024,inter_sm,16,405,"), std::string::npos) << csv;
}

TEST(SeqparSummary, TargetsJudgeHidingNcclAndTheCrossover) {
  const auto ring = ring_results(read_ring_csv(write_ring(kRing)));
  std::map<std::string, Target> t;
  for (const Target& x : seqpar_targets(ring, {})) t[x.id] = x;
  EXPECT_EQ(t["ring_hides_transfer"].verdict, "met");  // 97.2 % at S = 1024, the one compute-bound shape
  EXPECT_EQ(t["ring_beats_nccl_side"].verdict, "met");  // 90 / 70 and 450 / 405
  EXPECT_NE(t["ring_crossover"].measured.find("S=1024 (intra_sm: 8 link bytes per useful byte computed, 7.5 by NVML"),
            std::string::npos)
      << t["ring_crossover"].measured;
  EXPECT_EQ(t["ulysses_every_size"].verdict, "not measured");
  std::vector<FakeRing> slow = kRing;
  slow.push_back({"nccl_side", 1024, 0, 350});  // NCCL now faster than every schedule of ours at S = 1024
  std::map<std::string, Target> t2;
  for (const Target& x : seqpar_targets(ring_results(read_ring_csv(write_ring(slow))), {})) t2[x.id] = x;
  EXPECT_EQ(t2["ring_beats_nccl_side"].verdict, "missed");
}

TEST(SeqparSummary, UlyssesTargetsReadTheCollectivesRowsOfTheThreeLayouts) {
  const std::string path = temp_path("coll.csv");
  {
    std::vector<std::string> cols = pk::coll::coll_columns();
    for (const auto& m : metadata_columns()) cols.push_back(m);
    TidyCsv csv(path, cols);
    auto add = [&](const std::string& coll, const std::string& impl, uint64_t bytes, double us) {
      csv.append(Row{{"study", "collectives"}, {"collective", coll}, {"impl", impl}, {"family", impl == "nccl" ? "nccl" : "pk"},
                     {"dtype", "bf16"}, {"bytes", std::to_string(bytes)}, {"gpus", "4"}, {"launch_mode", "graph"},
                     {"status", "ok"}, {"verified", "yes"}, {"time_us_nccltests", fmt_num(us)}, {"peer_mode", "ipc"},
                     {"gpu_name", "NVIDIA H100 80GB HBM3"}, {"gpu_count", "4"}, {"host", "node"}});
    };
    add("all_to_all_4d", "push", 32 << 20, 100);
    add("all_to_all_4d", "nccl", 32 << 20, 140);
    add("all_to_all_4d", "push", 64 << 20, 180);
    add("all_to_all_4d", "nccl", 64 << 20, 210);  // 1.17x at the largest
    add("all_reduce", "nccl", 64 << 20, 1);       // not a Ulysses layout: ignored
    csv.flush();
  }
  const auto u = read_ulysses({path});
  ASSERT_EQ(u.size(), 2u);
  std::map<std::string, Target> t;
  for (const Target& x : seqpar_targets({}, u)) t[x.id] = x;
  EXPECT_EQ(t["ulysses_every_size"].verdict, "missed");  // 1.17 < 1.3
  EXPECT_EQ(t["ulysses_largest"].verdict, "met");        // 1.17 >= 1.1
  EXPECT_EQ(t["ring_hides_transfer"].verdict, "not measured");
  EXPECT_NE(summary_markdown(RingData{}, {}, u).find("| all_to_all_4d | 67108864 | graph | 4 |"), std::string::npos);
}
