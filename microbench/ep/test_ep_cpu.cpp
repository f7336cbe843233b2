// Expert-parallel study, CPU (label cpu): the shape's refusals; the router (distinct experts in
// range, weights summing to 1, the same routing from the same seed, each routing's promise);
// the traffic against a brute-force recount; the packed regions; the grouped GEMM's tile order
// (every tile once, expert-major, column-major inside an expert); the LL slot geometry and the
// header's layout; the value functions (never zero or NaN, exact in bf16); the presets and the
// flags' refusals; the summary's SM sweep and targets, the tuning table and choose_ep's rule,
// and the DeepEP log parsing and merge, on CSVs written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "kernels/ep/ep_data.cuh"
#include "microbench/ep/ep_problem.h"
#include "microbench/ep/ep_ref.h"
#include "microbench/ep/ep_summary.h"
#include "microbench/ep/ep_tuning.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tidy_csv.h"

using namespace pk;
using namespace pk::ep;

namespace {

EpShape shape(int tokens, int ranks, int experts = 256, int topk = 8) {
  EpShape s;
  s.tokens = tokens;
  s.ranks = ranks;
  s.experts = experts;
  s.topk = topk;
  s.hidden = 7168;
  return s;
}

std::vector<Routing> all_routings(const EpShape& s, RoutingKind k, RouterOptions o = {}) {
  std::vector<Routing> v;
  for (int r = 0; r < s.ranks; ++r) v.push_back(make_routing(s, k, o, r));
  return v;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pkbench_ep_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST(EpShape, RefusesWhatTheKernelsCannotRun) {
  EXPECT_NO_THROW(check_shape(shape(4096, 4)));
  EpShape s = shape(4096, 4);
  s.hidden = 7170;
  EXPECT_THROW(check_shape(s), ArgError);  // not whole 16-B vectors
  s = shape(4096, 3);
  EXPECT_THROW(check_shape(s), ArgError);  // 256 experts over 3 ranks
  s = shape(4096, 4, 256, 9);
  EXPECT_THROW(check_shape(s), ArgError);  // TopK above 8
  s = shape(0, 4);
  EXPECT_THROW(check_shape(s), ArgError);
  s = shape(16, 9, 288);
  EXPECT_THROW(check_shape(s), ArgError);  // more ranks than kMaxRanks
  s = shape(16, 4, 4096);
  EXPECT_THROW(check_shape(s), ArgError);  // more experts than the count kernels hold
  s = shape(16, 4);
  s.h_expert = 2000;
  EXPECT_NO_THROW(check_shape(s));
  EXPECT_THROW(check_gemm_shape(s), ArgError);  // H_expert not whole column tiles
  s.h_expert = 2048;
  s.hidden = 7176;  // a multiple of 8, not of 64
  EXPECT_NO_THROW(check_shape(s));
  EXPECT_THROW(check_gemm_shape(s), ArgError);
}

TEST(EpRouter, EveryRoutingDrawsDistinctExpertsInRangeWithWeightsSummingToOne) {
  for (const std::string& name : routing_names()) {
    const RoutingKind k = parse_routing(name);
    for (int ranks : {2, 3, 4, 8}) {
      const EpShape s = shape(1001, ranks, 48, 8);
      const Routing r = make_routing(s, k, {}, ranks - 1);
      ASSERT_EQ(r.topk.size(), size_t(s.tokens) * s.topk);
      for (int t = 0; t < s.tokens; ++t) {
        std::set<int> seen;
        double sum = 0;
        for (int q = 0; q < s.topk; ++q) {
          const int e = r.topk[size_t(t) * s.topk + q];
          ASSERT_GE(e, 0);
          ASSERT_LT(e, s.experts);
          EXPECT_TRUE(seen.insert(e).second) << name << " token " << t;
          EXPECT_GT(r.w[size_t(t) * s.topk + q], 0.f);
          sum += r.w[size_t(t) * s.topk + q];
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
  }
}

TEST(EpRouter, SameSeedSameRoutingAnotherSeedAnother) {
  const EpShape s = shape(257, 4);
  RouterOptions a, b;
  b.seed = a.seed + 1;
  EXPECT_EQ(make_routing(s, RoutingKind::uniform, a, 2).topk, make_routing(s, RoutingKind::uniform, a, 2).topk);
  EXPECT_NE(make_routing(s, RoutingKind::uniform, a, 2).topk, make_routing(s, RoutingKind::uniform, b, 2).topk);
  EXPECT_NE(make_routing(s, RoutingKind::uniform, a, 1).topk, make_routing(s, RoutingKind::uniform, a, 2).topk);
}

TEST(EpRouter, EachRoutingKeepsItsPromise) {
  const EpShape s = shape(2048, 4);
  const int El = s.local_experts();
  const Traffic none = traffic_of(s, all_routings(s, RoutingKind::no_recv));
  for (int src = 0; src < s.ranks; ++src) EXPECT_EQ(none.tokens_to[src][s.ranks - 1], 0) << "the last rank receives nothing";
  const Traffic one = traffic_of(s, all_routings(s, RoutingKind::one_expert));
  EXPECT_EQ(one.expert_count[0], s.tokens * s.ranks) << "expert 0 receives every token";
  const Traffic zipf = traffic_of(s, all_routings(s, RoutingKind::zipf));
  int first = 0, last = 0;
  for (int j = 0; j < El; ++j) {
    first += zipf.expert_count[j];
    last += zipf.expert_count[(s.ranks - 1) * El + j];
  }
  EXPECT_GT(first, 2 * last) << "zipf: the first rank's experts are hot";
  EXPECT_NO_THROW(check_routing(RoutingKind::no_recv, shape(16, 2, 16, 8)));  // 8 experts left for TopK 8
  EXPECT_THROW(check_routing(RoutingKind::no_recv, shape(16, 2, 14, 8)), ArgError);  // 7 left
}

TEST(EpTraffic, MatchesABruteForceRecount) {
  for (int ranks : {2, 3, 8}) {
    const EpShape s = shape(131, ranks, 48, 6);
    const auto all = all_routings(s, RoutingKind::zipf);
    const Traffic tr = traffic_of(s, all);
    const int El = s.local_experts();
    int64_t bytes = 0;
    for (int src = 0; src < ranks; ++src)
      for (int d = 0; d < ranks; ++d) {
        int n = 0;
        for (int t = 0; t < s.tokens; ++t) {
          bool any = false;
          for (int q = 0; q < s.topk; ++q) any |= all[src].topk[size_t(t) * s.topk + q] / El == d;
          n += any;
        }
        EXPECT_EQ(tr.tokens_to[src][d], n);
        if (d != src) bytes += int64_t(n) * s.hidden * 2;
      }
    EXPECT_EQ(tr.link_bytes(), bytes);
    for (int d = 0; d < ranks; ++d) {
      std::vector<int> counts(tr.expert_count.begin() + d * El, tr.expert_count.begin() + (d + 1) * El);
      const std::vector<int> base = packed_bases(counts);
      EXPECT_EQ(tr.rows_packed[d], base.back() + align_rows(counts.back()));
      for (int j = 0; j < El; ++j) EXPECT_EQ(base[j] % kRowAlign, 0);
    }
  }
}

TEST(EpGroupedTiles, EveryTileOnceExpertMajorColumnMajorInside) {
  const std::vector<int> count = {0, 1, 128, 129, 0, 300, 0};
  const int El = static_cast<int>(count.size()), tiles_n = 3;
  std::vector<int> prefix(El + 1, 0);
  for (int j = 0; j < El; ++j) prefix[j + 1] = prefix[j] + row_tiles(count[j]) * tiles_n;
  std::vector<std::tuple<int, int, int>> want;
  for (int j = 0; j < El; ++j)
    for (int n = 0; n < tiles_n; ++n)
      for (int i = 0; i < row_tiles(count[j]); ++i) want.emplace_back(j, i, n);
  ASSERT_EQ(int(want.size()), prefix[El]);
  for (int idx = 0; idx < prefix[El]; ++idx) {
    const GroupedTile g = grouped_tile_of(idx, prefix.data(), count.data(), El);
    EXPECT_EQ(std::make_tuple(g.expert, g.row_tile, g.col_tile), want[idx]) << "tile " << idx;
  }
  EXPECT_EQ(rows_in_tile(300, 2), 44);
  EXPECT_EQ(rows_in_tile(256, 1), 128);
}

TEST(EpGeometry, LlSlotAndHeaderLayout) {
  EXPECT_EQ(sizeof(TokenHeader), 64u);
  EXPECT_EQ(offsetof(TokenHeader, t), 0u);
  EXPECT_EQ(offsetof(TokenHeader, n), 4u);  // LL line 0 is {t, n}: a slot without tokens writes only it
  EXPECT_EQ(offsetof(TokenHeader, j), 8u);  // words 2..5: two uint16 ids each (route.cuh: header_word)
  EXPECT_EQ(offsetof(TokenHeader, w), 24u); // words 6..13
  EXPECT_EQ(LlSlot::kHeaderLines, 8);
  EXPECT_EQ(LlSlot::data_lines(7168), 7168 * 2 / 8);
  EXPECT_EQ(LlSlot::bytes(7168), (8 + 1792) * 16);
  EXPECT_EQ(pack_src(7, (1 << 24) - 1), static_cast<int32_t>(0x07FFFFFF));
  EXPECT_EQ(src_rank(pack_src(5, 123)), 5);
  EXPECT_EQ(src_token(pack_src(5, 123)), 123);
  const LayoutDims d{64, 4};
  EXPECT_EQ(d.ints(), 64 + 64 + 4 + 65);
}

TEST(EpValues, NeverZeroNeverNanExactInBf16) {
  std::set<uint16_t> distinct;
  for (int s = 0; s < 4; ++s)
    for (int t = 0; t < 64; ++t)
      for (int c = 0; c < 64; ++c) {
        const uint16_t b = x_bits(0x5eed, s, t, c);
        const float f = bf16_to_float(b);
        ASSERT_TRUE(std::isfinite(f));
        ASSERT_NE(f, 0.f);
        ASSERT_LE(std::fabs(f), 2.f);
        distinct.insert(b);
      }
  EXPECT_GT(distinct.size(), 500u);
  EXPECT_NE(y_bits(1, 3, 0, 5, 7), y_bits(1, 4, 0, 5, 7));
  EXPECT_NE(w_bits(1, 3, 0, 5), w_bits(1, 3, 1, 5));
}

TEST(EpPlan, EveryPresetPlansAndFlagsAreRefusedByName) {
  for (const Preset& p : presets()) {
    const std::vector<Point> pts = plan_points(p, {}, 512);
    EXPECT_FALSE(pts.empty()) << p.name;
    std::set<std::string> names;
    for (const Point& q : pts) {
      EXPECT_TRUE(names.insert(q.name()).second) << q.name();
      EXPECT_EQ(impl_info(q.impl).op, q.op);
      if (q.impl == "ll") {
        EXPECT_LE(q.tokens, 512);
      }
      if (!impl_info(q.impl).takes_sms) {
        EXPECT_EQ(q.sms, 0) << q.name();
      }
    }
  }
  const Preset& d = preset("default");
  auto refused = [&](GridText f, const std::string& flag) {
    try {
      plan_points(d, f, 512);
      ADD_FAILURE() << flag << " accepted";
    } catch (const ArgError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  };
  refused({"", "", "", "0", ""}, "--tokens");
  refused({"", "", "", "", "0"}, "--sms");
  refused({"", "ring", "", "", ""}, "--impls");
  refused({"", "", "lumpy", "", ""}, "--routings");
  refused({"combine", "", "", "", ""}, "--ops");
  EXPECT_THROW(preset("huge"), ArgError);
  // Flags replace the preset's fields in every grid: one T, auto SMs.
  const std::vector<Point> one = plan_points(d, {"dispatch_combine", "ht,nccl", "uniform", "777", "auto"}, 512);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].name(), "ep/dispatch_combine/ht/uniform/T777");
  EXPECT_EQ(one[1].name(), "ep/dispatch_combine/nccl/uniform/T777");
  EXPECT_EQ(plan_points(d, {"", "ll", "", "1024", ""}, 512).size(), 0u) << "ll above --ll-max-tokens";
}

// ---- analysis ----------------------------------------------------------------------------

namespace {

struct FakeRow {
  std::string op, impl;
  int tokens, sms;
  double dispatch, combine;
  std::string routing = "uniform", status = "ok";
};

std::string write_fixture(const std::vector<FakeRow>& rows, const std::string& peer_mode = "ipc") {
  const std::string path = temp_path("fixture.csv");
  TidyCsv csv(path, ep_columns());
  for (const FakeRow& f : rows) {
    Row r{{"study", "ep"}, {"op", f.op}, {"impl", f.impl}, {"family", f.impl.rfind("nccl", 0) == 0 ? "nccl" : "pk"},
          {"routing", f.routing}, {"tokens", std::to_string(f.tokens)}, {"hidden", "7168"}, {"experts", "256"}, {"topk", "8"},
          {"ranks", "4"}, {"sms", f.sms ? std::to_string(f.sms) : ""}, {"status", f.status},
          {"verified", f.status == "ok" ? "yes" : "no"}, {"peer_mode", peer_mode}, {"gpu_name", "NVIDIA H100 80GB HBM3"},
          {"gpu_count", "4"}, {"host", "node"}};
    r["dispatch_us_median"] = fmt_num(f.dispatch);
    if (f.combine > 0) r["combine_us_median"] = fmt_num(f.combine);
    r["total_us_median"] = fmt_num(f.dispatch + f.combine);
    csv.append(r);
  }
  csv.flush();
  return path;
}

const std::vector<FakeRow> kRows = {
    {"dispatch_combine", "ht", 4096, 8, 900, 900},   {"dispatch_combine", "ht", 4096, 16, 520, 500},
    {"dispatch_combine", "ht", 4096, 32, 480, 470},  {"dispatch_combine", "nccl", 4096, 0, 500, 500},
    {"dispatch_combine", "ll", 128, 8, 30, 30},      {"dispatch_combine", "ht", 128, 8, 60, 60},
    {"dispatch_combine", "nccl", 128, 0, 45, 45},    {"dispatch_combine", "ht", 128, 16, 50, 50, "uniform", "error"},
    {"dispatch_gemm", "ht_then_gemm", 4096, 16, 2000, 0}, {"dispatch_gemm", "overlap", 4096, 16, 1600, 0},
    {"dispatch_gemm", "overlap", 4096, 32, 1700, 0},
};

}  // namespace

TEST(EpSummary, SmSweepFindsTheFewestSmsWithinNinetyPercentOfTheBest) {
  const EpData d = read_ep_csv(write_fixture(kRows));
  const std::vector<SmSweep> s = sm_sweeps(d);
  const auto it = std::find_if(s.begin(), s.end(), [](const SmSweep& x) { return x.impl == "ht" && x.tokens == 4096; });
  ASSERT_NE(it, s.end());
  EXPECT_EQ(it->best_sms, 32);
  EXPECT_DOUBLE_EQ(it->best_us, 950);
  EXPECT_EQ(it->fewest_sms_90, 16);  // 1020 <= 950 / 0.9 = 1055.6; 8 SMs (1800) is not
  EXPECT_EQ(it->sms_measured, 3);
}

TEST(EpSummary, TargetsJudgeTheWorstPointAgainstNccl) {
  const EpData d = read_ep_csv(write_fixture(kRows));
  std::map<std::string, EpTarget> t;
  for (const EpTarget& x : ep_targets(d)) t[x.id] = x;
  EXPECT_EQ(t["ep.vs_nccl_small.uniform"].verdict, "met");    // 90 / 60 = 1.5 (ll)
  EXPECT_EQ(t["ep.vs_nccl_large.uniform"].verdict, "missed");  // 1000 / 950 = 1.05
  EXPECT_EQ(t["ep.vs_nccl_small.zipf"].verdict, "not measured");
  EXPECT_EQ(t["ep.overlap_vs_sequential"].verdict, "met");     // 2000 / 1600 = 1.25
  EXPECT_EQ(t["ep.verified"].verdict, "missed");               // one error row
  EXPECT_EQ(t["ep.vs_deepep_normal"].verdict, "not measured");
  const std::string md = summary_markdown(d);
  EXPECT_NE(md.find("## SM sweep"), std::string::npos);
  EXPECT_NE(md.find("| 4096 |"), std::string::npos);
}

TEST(EpTuning, ChoosesTheFastestImplementationAtItsFewestSmsAndStatesItsBasis) {
  std::vector<FakeRow> rows = kRows;
  rows.push_back({"dispatch_combine", "ll", 1024, 8, 200, 200});
  rows.push_back({"dispatch_combine", "ht", 1024, 8, 150, 150});
  rows.push_back({"dispatch_combine", "ht", 1024, 16, 140, 150});
  const EpData d = read_ep_csv(write_fixture(rows));
  const std::vector<EpTuningRow> table = tuning_rows(d, false);
  const std::string path = temp_path("tuning.csv");
  write_tuning_csv(path, table);
  const EpTuner tuner(read_tuning_csv(path));
  EpChoice c = tuner.choose_ep(4096, 7168, 8, 4);
  EXPECT_EQ(c.impl, "ht");
  EXPECT_EQ(c.sms, 16);  // 32 SMs are the best (950 us); 16 (1020 us) within 90 % of its rate
  EXPECT_EQ(c.basis, "measured");
  c = tuner.choose_ep(128, 7168, 8, 4);
  EXPECT_EQ(c.impl, "ll");
  c = tuner.choose_ep(1024, 7168, 8, 4);
  EXPECT_EQ(c.impl, "ht");
  EXPECT_EQ(c.sms, 8);  // 300 us at 8 SMs is within 90 % of 290 us at 16
  c = tuner.choose_ep(300, 7168, 8, 4);  // log2: 300 is nearer 128 (1.23) than 1024 (1.77)
  EXPECT_EQ(c.basis, "interpolated");
  EXPECT_EQ(c.impl, "ll");
  c = tuner.choose_ep(8192, 7168, 8, 4);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.basis, "refused");
  EXPECT_FALSE(tuner.choose_ep(1024, 4096, 8, 4).ok()) << "another hidden size";
  const EpData v = read_ep_csv(write_fixture(rows, "virtual"));
  EXPECT_THROW(tuning_rows(v, false), std::runtime_error);
  EXPECT_NE(tuning_rows(v, true).front().machine.find("-virtual4"), std::string::npos);
}

TEST(EpDeepEp, LogsParsedAndMergedBesideTheRowsOfTheSameShape) {
  const std::string intra = temp_path("intranode.log"), ll = temp_path("ll.log");
  {
    std::ofstream f(intra);
    f << "[config] num_tokens=4096, hidden=7168, num_topk=8\n"
         "[tuning] SMs 24, NVL chunk 8: 300.00 GB/s (NVL), 700.00 us\n"
         "[tuning] Best dispatch (BF16): SMs 24, NVL chunk 16, 320.00 GB/s (NVL), t: 650.50 us\n"
         "[tuning] Best combine: SMs 24, NVL chunk 6: 310.00 GB/s (NVL), t: 640.25 us\n";
    std::ofstream g(ll);
    g << "[rank 0] Dispatch bandwidth: 40.00 GB/s, avg_t=25.00 us | Combine bandwidth: 60.00 GB/s, avg_t=33.00 us\n"
         "[rank 1] Dispatch bandwidth: 38.00 GB/s, avg_t=27.50 us | Combine bandwidth: 59.00 GB/s, avg_t=31.00 us\n";
  }
  DeepEpFigures f;
  parse_deepep_intranode(intra, f);
  parse_deepep_low_latency(ll, 128, f);
  EXPECT_EQ(f.tokens, 4096);
  EXPECT_EQ(f.sms, 24);
  EXPECT_DOUBLE_EQ(f.dispatch_us, 650.5);
  EXPECT_DOUBLE_EQ(f.combine_us, 640.25);
  EXPECT_DOUBLE_EQ(f.ll_dispatch_us, 27.5);  // the slowest rank
  EXPECT_DOUBLE_EQ(f.ll_combine_us, 33.0);
  const std::string csv = write_fixture(kRows);
  EXPECT_EQ(merge_deepep(csv, f, 4, "1.2.1"), 4);  // ht at T=4096 (three SM counts), ll at T=128
  const EpData d = read_ep_csv(csv);
  for (const EpRow& r : d.rows)
    if (r.impl == "ht" && r.tokens == 4096) {
      EXPECT_DOUBLE_EQ(r.ref_time_us, 1290.75);
      EXPECT_EQ(r.ref_sms, 24);
    }
  std::map<std::string, EpTarget> t;
  for (const EpTarget& x : ep_targets(d)) t[x.id] = x;
  EXPECT_EQ(t["ep.vs_deepep_normal"].verdict, "met");  // 1290.75 / 950 (32 SMs > 24: 1020 at 16 SMs) = 1.27
  EXPECT_EQ(t["ep.vs_deepep_ll"].verdict, "met");      // 60.5 / 60
  EXPECT_EQ(merge_deepep(csv, DeepEpFigures{}, 4, "x"), 0);
  const std::string empty = temp_path("empty.log");
  std::ofstream(empty) << "nothing\n";
  EXPECT_THROW(parse_deepep_intranode(empty, f), std::runtime_error);
}
