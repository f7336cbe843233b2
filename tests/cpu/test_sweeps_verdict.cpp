// The one rule from rows to verdicts (microbench/harness/verdict.h) and every study's targets, on small
// committed fixtures (tests/fixtures/): noise, best-of with ties, a baseline off its tool, a
// missing baseline, protocol-matched primitives, the fused best baseline at every shape.
#include <gtest/gtest.h>

#include <map>

#include "microbench/collectives/collectives_analysis.h"
#include "sweeps/targets.h"
#include "microbench/harness/verdict.h"
#include "tests/cpu/sweeps_test_util.h"

using namespace pk;
using namespace pk::sweeps;
using namespace pk::sweeps::testing;

namespace {

std::map<std::string, TargetResult> by_id(const std::vector<TargetResult>& v) {
  std::map<std::string, TargetResult> m;
  for (const auto& t : v)
    if (!t.id.empty()) m.emplace(t.id, t);  // first of an id (transfer repeats per direction)
  return m;
}

const std::string kColl = "report/collectives.csv";

Candidate cand(const char* name, Timing t) {
  Candidate c;
  c.name = name;
  c.t = t;
  return c;
}

}  // namespace

TEST(SweepsVerdict, NoiseBandsAndTheTieFraction) {
  EXPECT_TRUE(within_noise({10, 9.8, 10.2}, {10.3, 10.1, 10.5}));   // bands overlap
  EXPECT_FALSE(within_noise({10, 9.9, 10.0}, {10.3, 10.1, 10.5}));  // they do not
  EXPECT_TRUE(within_noise({10, 0, 0}, {10.09, 0, 0}));             // no band: within 1 %
  EXPECT_FALSE(within_noise({10, 0, 0}, {10.2, 0, 0}));
  EXPECT_FALSE(within_noise({0, 0, 0}, {10, 0, 0}));  // a missing measurement ties with nothing
  EXPECT_DOUBLE_EQ(speedup(15, 10), 1.5);
  EXPECT_EQ(speedup(0, 10), 0);
}

TEST(SweepsVerdict, BestOfAFamilyWithTies) {
  const std::vector<Candidate> f = {cand("a", {10.0, 9.9, 10.1}), cand("b", {10.05, 10.0, 10.2}), cand("c", {11, 10.9, 11.1}),
                                    cand("d", {0, 0, 0})};
  const Best b = best_of(f);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.fastest->name, "a");
  ASSERT_EQ(b.tied.size(), 2u);  // a and b overlap; c is beyond; d was not measured
  EXPECT_EQ(b.tied[1]->name, "b");
  EXPECT_FALSE(best_of({}));
}

TEST(SweepsVerdict, BestOursAgainstBestBaseline) {
  const std::vector<Candidate> ours = {cand("x", {8, 7.9, 8.1}), cand("y", {9, 8.9, 9.1})};
  const std::vector<Candidate> base = {cand("n1", {12, 11.9, 12.1}), cand("n2", {15, 14.9, 15.1})};
  PointVerdict v = compare_best(ours, base);
  EXPECT_EQ(v.outcome, Outcome::faster);
  EXPECT_DOUBLE_EQ(v.speedup, 1.5);  // best baseline n1 over best ours x
  EXPECT_TRUE(v.claimable());
  v = compare_best({cand("x", {12.05, 12.0, 12.2})}, base);
  EXPECT_EQ(v.outcome, Outcome::tie);
  EXPECT_DOUBLE_EQ(judged_speedup(v), 1.0);  // within the noise counts as neither faster
  EXPECT_EQ(compare_best({cand("x", {13, 12.9, 13.1})}, base).outcome, Outcome::slower);
  EXPECT_EQ(compare_best(ours, {}).outcome, Outcome::no_baseline);
  EXPECT_EQ(compare_best({}, base).outcome, Outcome::no_ours);
}

TEST(SweepsVerdict, CrossCheckStatus) {
  EXPECT_EQ(cross_check("t", 0, 0).status(), CheckStatus::not_checked);
  EXPECT_EQ(cross_check("t", 0, std::nan("")).text(), "not checked");
  EXPECT_EQ(cross_check("t", 10, 1.05).status(), CheckStatus::checked);  // the 5 % edge is within
  EXPECT_EQ(cross_check("nccl-tests", 10, 0.94).text(), "off by 6.0 % (nccl-tests)");
  EXPECT_TRUE(cross_check("t", 10, 1.12).defective());
  // A verdict resting on several baselines takes the weakest: off, then unchecked, then checked.
  EXPECT_TRUE(weakest({cross_check("t", 1, 1.0), cross_check("t", 1, 1.2), CrossCheck{}}).defective());
  EXPECT_EQ(weakest({cross_check("t", 1, 1.0), CrossCheck{}}).status(), CheckStatus::not_checked);
  EXPECT_EQ(weakest({cross_check("t", 1, 1.01)}).status(), CheckStatus::checked);
  // Met over a defective baseline is not claimed; a miss stays a miss.
  EXPECT_EQ(judge(true, cross_check("t", 1, 1.2)), Verdict::baseline_defective);
  EXPECT_EQ(judge(false, cross_check("t", 1, 1.2)), Verdict::missed);
  EXPECT_EQ(judge(true, CrossCheck{}), Verdict::met);
  // Held only because a point within the noise was judged as 1.0: a tie, not met (and a
  // defective baseline still wins over the tie).
  EXPECT_EQ(judge(true, CrossCheck{}, true), Verdict::tie);
  EXPECT_EQ(judge(true, cross_check("t", 1, 1.2), true), Verdict::baseline_defective);
  EXPECT_EQ(judge(false, CrossCheck{}, true), Verdict::missed);
  EXPECT_STREQ(verdict_text(Verdict::tie), "tie (within noise)");
}

TEST(SweepsVerdict, CollectivePointsOnFixture) {
  const CollectivesData d = read_collectives_info(fixture(kColl));
  ASSERT_EQ(headline_method(d), CollMethod::nccltests);
  const auto pts = collective_points(fixture(kColl), CollMethod::nccltests);
  const CollPoint* p = find_point(pts, "all_reduce", "bf16", 4096, "eager");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ours.impl, "ll");  // the faster error row (two_shot_push, 1 us) is never a number
  EXPECT_EQ(p->ours.tied, 2);     // one_shot within 1 % of ll
  EXPECT_EQ(p->nccl.impl, "nccl_sym");
  EXPECT_DOUBLE_EQ(p->speedup, 9.0 / 6.0);
  EXPECT_EQ(p->check.status(), CheckStatus::checked);
  p = find_point(pts, "all_reduce", "bf16", 4096, "graph");
  EXPECT_TRUE(p->check.defective());
  EXPECT_EQ(p->check.text(), "off by 12.0 % (nccl-tests 2.19.6 all_reduce_perf)");
  p = find_point(pts, "all_reduce", "bf16", 1 << 20, "eager");
  EXPECT_EQ(p->nccl.impl, "nccl");  // NVSHMEM (5 us) is beside, never NCCL
  EXPECT_DOUBLE_EQ(p->speedup_nvshmem, 5.0 / 14.0);
  EXPECT_EQ(find_point(pts, "reduce_scatter", "bf16", 4 << 20, "eager")->outcome, Outcome::no_baseline);
  EXPECT_EQ(find_point(pts, "all_to_all", "bf16", 1 << 20, "eager")->outcome, Outcome::no_ours);
  EXPECT_EQ(find_point(pts, "all_gather", "bf16", 1 << 20, "eager")->outcome, Outcome::tie);
  // The device-time view: the gated medians, compared alike.
  const auto dev = collective_points(fixture(kColl), CollMethod::device_time);
  EXPECT_DOUBLE_EQ(find_point(dev, "all_reduce", "bf16", 4096, "eager")->speedup, 4.5 / 4.0);
  // "Up to": the largest speedup over a baseline that is not off its tool (4 KiB graph, 1.43x, is).
  const CollectiveSpeedup s = best_speedup_over_nccl(fixture(kColl), "all_reduce", "bf16");
  EXPECT_NEAR(s.speedup, 18.0 / 11.0, 1e-12);
  EXPECT_EQ(s.launch_mode, "graph");
  const auto cmp = collective_comparisons(pts);
  ASSERT_FALSE(cmp.empty());
  EXPECT_EQ(cmp[0].collective, "all_reduce");
  EXPECT_EQ(cmp[0].launch_mode, "eager");
  EXPECT_EQ(cmp[0].sizes, 4);
  EXPECT_EQ(cmp[0].faster, 4);
}

TEST(SweepsVerdict, CollectiveTargetsOnFixture) {
  auto t = by_id(collectives_targets(collective_points(fixture(kColl), CollMethod::nccltests), CollMethod::nccltests));
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t["collectives.ar_small"].verdict, Verdict::baseline_defective);  // >= 1.3x, but 4 KiB graph's NCCL is off
  EXPECT_NE(t["collectives.ar_small"].check_text().find("off by 12.0 %"), std::string::npos);
  EXPECT_EQ(t["collectives.ar_mid"].verdict, Verdict::missed);  // 1 MiB eager 1.43x
  EXPECT_NE(t["collectives.ar_mid"].note.find("1 MiB eager 1.43"), std::string::npos) << t["collectives.ar_mid"].note;
  EXPECT_EQ(t["collectives.ar_large"].verdict, Verdict::met);
  EXPECT_EQ(t["collectives.ar_large"].check_text(), "not checked");  // old-style rows without ref columns
  EXPECT_EQ(t["collectives.ar_busbw"].verdict, Verdict::met);
  EXPECT_EQ(t["collectives.ar_busbw"].check_text(), "-");  // an absolute target has no baseline
  // Its lowest point is within the noise with the slower median: a tie, not met.
  EXPECT_EQ(t["collectives.ag_all"].verdict, Verdict::tie);
  EXPECT_EQ(t["collectives.rs_all"].verdict, Verdict::missed);
  EXPECT_NE(t["collectives.rs_all"].note.find("no comparison at 4 MiB eager"), std::string::npos);
  EXPECT_EQ(t["collectives.a2a_all"].verdict, Verdict::not_measured);
  EXPECT_EQ(t["collectives.ag_rs_busbw"].verdict, Verdict::missed);  // reduce-scatter 255 GB/s
  EXPECT_EQ(t["collectives.tensor_dim"].verdict, Verdict::not_measured);
}

TEST(SweepsVerdict, PrimitivesTargetsCompareLikeWithLike) {
  auto t = by_id(primitives_targets(fixture("primitives_fixture.csv")));
  ASSERT_EQ(t.size(), 4u);
  // release/acquire against release/acquire (780 vs NCCL's 800 ns): never the incorrect relaxed
  // row, never the LL row (400 ns, no library LL), never NVSHMEM's library-defined call.
  EXPECT_EQ(t["primitives.put_signal"].verdict, Verdict::met);
  EXPECT_NE(t["primitives.put_signal"].measured.find("780 ns"), std::string::npos) << t["primitives.put_signal"].measured;
  EXPECT_NE(t["primitives.put_signal"].measured.find("800 ns"), std::string::npos);
  // The relaxed signal (700 ns) has no library row of its ordering (NVSHMEM's 690 ns call is
  // "library-defined"): release/acquire against release/acquire, 750 vs NCCL's 770 ns.
  EXPECT_EQ(t["primitives.signal"].verdict, Verdict::met);
  EXPECT_NE(t["primitives.signal"].measured.find("750 ns"), std::string::npos) << t["primitives.signal"].measured;
  EXPECT_NE(t["primitives.signal"].measured.find("770 ns"), std::string::npos);
  EXPECT_NE(t["primitives.signal"].note.find("700 ns"), std::string::npos) << t["primitives.signal"].note;
  EXPECT_EQ(t["primitives.get_l2_resident"].verdict, Verdict::met);
  // NVSHMEM's get (1450 ns) beats this suite's weak load (1500 ns); the error row is no number.
  EXPECT_EQ(t["primitives.get_l2_miss"].verdict, Verdict::missed);
  EXPECT_NE(t["primitives.get_l2_miss"].measured.find("1450 ns"), std::string::npos) << t["primitives.get_l2_miss"].measured;
}

TEST(SweepsVerdict, FusedTargetsAgainstTheBestBaselineAtEveryShape) {
  const FusedSummary f = fused_summary(fixture("report/fused/fused.csv"));
  auto t = by_id(fused_targets(f, fused_k_sweep(fixture("report/fused/fused_table3.csv"))));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t["fused.vs_cublas_nccl"].verdict, Verdict::met);  // lowest AG+GEMM 1.3x
  EXPECT_NE(t["fused.vs_cublas_nccl"].measured.find("AG+GEMM N = 4096 inter_sm 1.300x"), std::string::npos)
      << t["fused.vs_cublas_nccl"].measured;
  // The copy-engine overlap beats AG+GEMM at N = 4096 although communication is >= 30 % there.
  EXPECT_EQ(t["fused.vs_best_baseline"].verdict, Verdict::missed);
  EXPECT_NE(t["fused.vs_best_baseline"].measured.find("AG+GEMM N = 4096 inter_sm against ce_overlap: 0.840"),
            std::string::npos)
      << t["fused.vs_best_baseline"].measured;
  EXPECT_EQ(t["fused.hidden_k"].verdict, Verdict::met);
}

TEST(SweepsVerdict, SyncTargetsOnFixture) {
  auto t = by_id(sync_targets(read_sync(fixture("sync_fixture.csv"))));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t["sync.samples"].verdict, Verdict::met);  // 2000 operations behind every median
  EXPECT_NE(t["sync.samples"].measured.find("2000"), std::string::npos) << t["sync.samples"].measured;
  EXPECT_EQ(t["sync.clock"].verdict, Verdict::met);
  EXPECT_EQ(t["sync.clock"].check_text(), "-");
  // A row of 500 operations without its clock's resolution misses both.
  SyncData d = read_sync(fixture("sync_fixture.csv"));
  d.rows[1].samples = 500;
  d.rows[1].clock_resolution_ns = 0;
  t = by_id(sync_targets(d));
  EXPECT_EQ(t["sync.samples"].verdict, Verdict::missed);
  EXPECT_EQ(t["sync.clock"].verdict, Verdict::missed);
}
