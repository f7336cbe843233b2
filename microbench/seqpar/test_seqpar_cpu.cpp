// Sequence-parallel study, plain C++ (label cpu): the ring's shape checks, schedules, points,
// presets, the computed link bytes, the inputs' values (exact in bf16), the columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "kernels/seqpar/ring_values.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/seqpar/seqpar_problem.h"

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
