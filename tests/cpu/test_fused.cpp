// CPU tests of the fused study: the tile orders the fused kernels run (permutations with
// exact inverses; every output tile and every unit owned exactly once; the counts the
// completion counters expect), the operators' shapes and the refusals of shapes the kernels
// cannot run, the schedule/knob declarations and the point grid, and the cost model's
// arithmetic on fixture CSVs (tests/fixtures/fused_*.csv).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/fused/fused_schedule.cuh"
#include "tests/cpu/fused_test_util.h"
#include "microbench/fused/fused_problem.h"
#include "microbench/harness/cuda_check.h"
#ifdef PKBENCH_FUSED_MODEL
#include "microbench/fused/cost_model.h"
#endif

using namespace pk;
using namespace pk::fused;
using gemm::TileCoord;

namespace {

struct Grid {
  int tm, tn, g, shards;
};
const std::vector<Grid> kGrids = {{2, 1, 1, 2}, {4, 3, 2, 2}, {8, 5, 16, 2}, {16, 7, 3, 4}, {24, 2, 8, 8},
                                  {64, 32, 8, 2}, {3, 4, 1, 3}, {8, 1, 5, 1}};

template <class Order, class Inverse>
void expect_permutation_with_inverse(const Grid& gr, Order order, Inverse inverse) {
  std::vector<int> seen(gr.tm * gr.tn, 0);
  for (int i = 0; i < gr.tm * gr.tn; ++i) {
    const TileCoord t = order(i);
    ASSERT_GE(t.m, 0);
    ASSERT_LT(t.m, gr.tm);
    ASSERT_GE(t.n, 0);
    ASSERT_LT(t.n, gr.tn);
    ++seen[t.m * gr.tn + t.n];
    ASSERT_EQ(inverse(t), i) << "tile (" << t.m << "," << t.n << ")";
  }
  for (int v : seen) ASSERT_EQ(v, 1);
}

std::string trace(const Grid& g, int first) {
  return std::to_string(g.tm) + "x" + std::to_string(g.tn) + " group " + std::to_string(g.g) + " shards " +
         std::to_string(g.shards) + " first " + std::to_string(first);
}

}  // namespace

TEST(FusedSchedule, GroupedIndexInvertsGroupedTile) {
  for (const Grid& gr : kGrids) {
    SCOPED_TRACE(trace(gr, 0));
    expect_permutation_with_inverse(
        gr, [&](int i) { return gemm::grouped_tile(i, gr.tm, gr.tn, gr.g); },
        [&](TileCoord t) { return grouped_index(t, gr.tm, gr.tn, gr.g); });
  }
}

TEST(FusedSchedule, InterleavedOrderIsAPermutationWithItsInverse) {
  for (const Grid& gr : kGrids)
    for (int first = 0; first < gr.shards + 2; ++first) {
      SCOPED_TRACE(trace(gr, first));
      expect_permutation_with_inverse(
          gr, [&](int i) { return interleaved_tile(i, gr.tm, gr.tn, gr.g, gr.shards, first); },
          [&](TileCoord t) { return interleaved_index(t, gr.tm, gr.tn, gr.g, gr.shards, first); });
    }
}

TEST(FusedSchedule, InterleavedOrderCyclesOverTheOwners) {
  // Index i belongs to shard (first + i) % shards: every owner is served in every window of
  // `shards` consecutive tiles, and every GPU reaches owner o's j-th tile at index j*w + small.
  const Grid gr{16, 5, 2, 4};
  for (int first = 0; first < 4; ++first)
    for (int i = 0; i < gr.tm * gr.tn; ++i) {
      const TileCoord t = interleaved_tile(i, gr.tm, gr.tn, gr.g, gr.shards, first);
      ASSERT_EQ(t.m / (gr.tm / gr.shards), (first + i) % gr.shards);
    }
}

TEST(FusedSchedule, ShardArrivalOrderIsAPermutationWithItsInverse) {
  for (const Grid& gr : kGrids)
    for (int first = 0; first < gr.shards; ++first) {
      SCOPED_TRACE(trace(gr, first));
      expect_permutation_with_inverse(
          gr, [&](int i) { return gemm::shard_arrival_tile(i, gr.tm, gr.tn, gr.g, gr.shards, first); },
          [&](TileCoord t) { return shard_arrival_index(t, gr.tm, gr.tn, gr.g, gr.shards, first); });
    }
}

TEST(FusedSchedule, EveryUnitOwnedExactlyOnceByItsRowOwner) {
  // The inter-SM reductions: owner o's communicator blocks walk units 0 .. units_per_shard-1
  // of shard o (block b takes b, b + B, ...): over all owners and blocks, every half tile of
  // C exactly once, always in the owner's rows.
  for (const Grid& gr : kGrids)
    for (int blocks : {1, 3, 16, 200}) {
      SCOPED_TRACE(trace(gr, 0) + " blocks " + std::to_string(blocks));
      std::vector<int> seen(gr.tm * gr.tn * kHalves, 0);
      for (int o = 0; o < gr.shards; ++o)
        for (int b = 0; b < blocks; ++b)
          for (int u = b; u < units_per_shard(gr.tm, gr.tn, gr.shards); u += blocks) {
            const Unit x = shard_unit(u, o, gr.tm, gr.tn, gr.g, gr.shards);
            ASSERT_EQ(x.tile.m / (gr.tm / gr.shards), o) << "a unit outside its owner's rows";
            ++seen[(x.tile.m * gr.tn + x.tile.n) * kHalves + x.half];
          }
      for (int v : seen) ASSERT_EQ(v, 1);
    }
}

TEST(FusedSchedule, UnitFlagSlotsAreDistinct) {
  const Grid gr{8, 6, 4, 2};
  std::set<int> slots;
  for (int m = 0; m < gr.tm; ++m)
    for (int n = 0; n < gr.tn; ++n)
      for (int h = 0; h < kHalves; ++h)
        for (int src = 0; src < 8; ++src) ASSERT_TRUE(slots.insert(unit_slot({m, n}, h, gr.tn, src, 8)).second);
  EXPECT_EQ(*slots.rbegin(), gr.tm * gr.tn * kHalves * 8 - 1);
}

TEST(FusedSchedule, IntraSmCompletionCountsMatchTheTarget) {
  // Each GPU's consumers add, per block, the tiles they sent to owner o; the owner waits for
  // world x (tiles of its shard) per consumer. Summing the per-block counts must give that.
  for (const Grid& gr : kGrids)
    for (int blocks : {1, 5, 132, 500})
      for (int rank = 0; rank < gr.shards; ++rank) {
        const int tiles = gr.tm * gr.tn;
        for (int o = 0; o < gr.shards; ++o) {
          int sum = 0;
          for (int b = 0; b < blocks; ++b) sum += interleaved_tiles_to_shard(b, blocks, tiles, gr.shards, rank + 1, o);
          ASSERT_EQ(sum, tiles / gr.shards) << trace(gr, rank) << " blocks " << blocks << " owner " << o;
        }
      }
}

TEST(FusedSchedule, AllGatherCopiesEveryPeerRowOnceInConsumptionOrder) {
  for (int shards : {2, 3, 4, 8})
    for (int rank = 0; rank < shards; ++rank) {
      const int tm = shards * 5;
      std::vector<int> seen(tm, 0);
      int prev_pos = -1;
      for (int j = 0; j < ag_copy_rows(tm, shards); ++j) {
        const int row = ag_copy_row(j, rank, tm, shards);
        ++seen[row];
        // The compute blocks consume shards rank, rank+1, ...: the copy list follows that order.
        const int pos = ((row / 5 - rank) % shards + shards) % shards;
        ASSERT_GE(pos, 1);
        ASSERT_GE(pos, prev_pos);
        prev_pos = pos;
      }
      for (int r = 0; r < tm; ++r) ASSERT_EQ(seen[r], r / 5 == rank ? 0 : 1) << "row " << r;
    }
}

TEST(FusedSchedule, CopyEngineChunkFlagsMatchTheKernelsRowFlags) {
  // The host writes flag s * chunks + j after chunk j of shard s; the kernel waits on
  // flag tile_row / rows_per_flag for every tile row of that chunk.
  for (int shard_tiles : {4, 12})
    for (int chunk : {1, 2, 4})
      for (int s = 0; s < 3; ++s)
        for (int j = 0; j < shard_tiles / chunk; ++j)
          for (int r = 0; r < chunk; ++r) {
            const int tile_row = s * shard_tiles + j * chunk + r;
            ASSERT_EQ(tile_row / chunk, (s * shard_tiles + j * chunk) / chunk);
            ASSERT_EQ(tile_row / chunk, s * (shard_tiles / chunk) + j);
          }
}

// ---- operators and shapes ----

TEST(FusedProblem, PaperShapesReplaceEightByTheGpuCount) {
  EXPECT_EQ(paper_shape(Op::ag_gemm, 8192, 2), (Shape{8192, 4096, 8192}));
  EXPECT_EQ(paper_shape(Op::gemm_rs, 8192, 2), (Shape{8192, 8192, 4096}));
  EXPECT_EQ(paper_shape(Op::gemm_ar, 16384, 8), (Shape{16384, 16384, 2048}));
  EXPECT_EQ(shard_rows(Op::gemm_rs, Shape{8192, 8192, 4096}, 4), 2048);
}

TEST(FusedProblem, BytesEachOperatorMoves) {
  const Shape s{4096, 2048, 1024};
  EXPECT_DOUBLE_EQ(collective_bytes(Op::gemm_rs, s, 2), 0.5 * 4096 * 2048 * 2);
  EXPECT_DOUBLE_EQ(collective_bytes(Op::ag_gemm, s, 4), 0.75 * 4096 * 1024 * 2);
  EXPECT_DOUBLE_EQ(collective_bytes(Op::gemm_ar, s, 2), 2 * 0.5 * 4096 * 2048 * 2);
  EXPECT_DOUBLE_EQ(intra_sm_bytes(Op::gemm_ar, s, 4), 3.0 * 4096 * 2048 * 2);
  EXPECT_DOUBLE_EQ(intra_sm_bytes(Op::ag_gemm, s, 2), collective_bytes(Op::ag_gemm, s, 2) * (2048 / 256));
}


TEST(FusedProblem, ShapesNotWholeTilesAreRefusedWithEveryReason) {
  const std::string e = refusal([] { check_shape(Op::gemm_rs, Shape{1000, 300, 100}, 2, "--shapes"); });
  EXPECT_NE(e.find("--shapes: gemm_rs 1000x300x100"), std::string::npos) << e;
  EXPECT_NE(e.find("M=1000 is not a multiple of the tile's 128 rows"), std::string::npos) << e;
  EXPECT_NE(e.find("N=300 is not a multiple of the tile's 256 columns"), std::string::npos) << e;
  EXPECT_NE(e.find("K=100 is not a multiple of the tile's K step 64"), std::string::npos) << e;
  EXPECT_EQ(refusal([] { check_shape(Op::gemm_rs, Shape{256, 256, 64}, 2, "--shapes"); }), "");
}

TEST(FusedProblem, ShapesNotSplittingOverTheGpusAreRefused) {
  const std::string e = refusal([] { check_shape(Op::ag_gemm, Shape{384, 256, 64}, 2, "--shapes"); });
  EXPECT_NE(e.find("does not split into 2 row shards"), std::string::npos) << e;
  EXPECT_NE(e.find("A's rows"), std::string::npos) << e;
  // Unknown GPU count: only the tile is checked.
  EXPECT_EQ(refusal([] { check_shape(Op::ag_gemm, Shape{384, 256, 64}, 0, "--shapes"); }), "");
  const std::string n = refusal([] { check_size(Op::gemm_rs, 4096, 3, "--sizes"); });
  EXPECT_NE(n.find("N=4096 is not divisible by the GPU count 3"), std::string::npos) << n;
  EXPECT_EQ(refusal([] { check_size(Op::gemm_rs, 3072, 3, "--sizes"); }), "");
  EXPECT_NE(refusal([] { check_size(Op::gemm_rs, 0, 2, "--sizes"); }), "");
}

// The registry (schedule_list.h): every name once, runs grouped by kind in run order, and
// each schedule implements some operator. The GPU tests run every listed name.
TEST(FusedProblem, ScheduleListRunsComponentsThenBaselinesThenFused) {
  const auto& v = schedules();
  ASSERT_FALSE(v.empty());
  for (size_t i = 0; i < v.size(); ++i) {
    SCOPED_TRACE(v[i].name);
    EXPECT_FALSE(v[i].summary.empty());
    EXPECT_FALSE(v[i].ops.empty());
    EXPECT_EQ(&schedule(v[i].name), &v[i]);
    if (i > 0) {
      EXPECT_LE(v[i - 1].kind, v[i].kind);
    }
  }
  EXPECT_NE(refusal([] { schedule("warp9"); }).find("--schedules: unknown schedule 'warp9'"), std::string::npos);
  // The CSV's comm_bytes: what intra_sm sends per tile, the collective's bytes for the rest.
  EXPECT_EQ(schedule("intra_sm").comm_bytes, &intra_sm_bytes);
  EXPECT_EQ(schedule("inter_sm").comm_bytes, &collective_bytes);
  EXPECT_EQ(schedule("cublas_nccl").comm_bytes, &collective_bytes);
}

TEST(FusedProblem, SchedulesDeclareTheirKnobsOnce) {
  const auto& ks = all_knobs();
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0]->name, "comm_sms");
  EXPECT_TRUE(schedule("inter_sm").has_knob("comm_sms"));
  EXPECT_FALSE(schedule("intra_sm").has_knob("comm_sms"));
  EXPECT_TRUE(schedule("ce_overlap").supports(Op::ag_gemm));
  EXPECT_FALSE(schedule("ce_overlap").supports(Op::gemm_rs));
  EXPECT_NE(refusal([] { schedule("warp9"); }), "");
  EXPECT_NE(refusal([] { parse_knob_list(knobs::comm_sms, "0"); }).find("--comm-sms=0"), std::string::npos);
  EXPECT_EQ(parse_knob_list(knobs::comm_sms, "8:32:+8"), (std::vector<int>{8, 16, 24, 32}));
  // Every knob is a CSV column.
  const auto& cols = fused_columns();
  for (const Knob* k : ks) EXPECT_NE(std::find(cols.begin(), cols.end(), k->name), cols.end()) << k->name;
  // What the sweeps' fused tuning table reads (microbench/fused/fused_analysis.h).
  for (const char* c : {"op", "overlap", "impl", "m", "n", "k", "gpus", "comm_sms", "time_us_median", "time_us_min",
                        "time_us_max", "cv", "tflops", "status"})
    EXPECT_NE(std::find(cols.begin(), cols.end(), c), cols.end()) << c;
  // Verdicts are the sweeps': no per-row speedup or best baseline is written; the sweeps
  // still accept them (and everything written now) in older CSVs.
  for (const auto& c : cols)
    EXPECT_TRUE(c.rfind("speedup_vs_", 0) != 0 && c.rfind("best_baseline", 0) != 0) << c;
  const auto& read = fused_read_columns();
  ASSERT_GT(read.size(), cols.size());
  EXPECT_TRUE(std::equal(cols.begin(), cols.end(), read.begin()));
  EXPECT_NE(std::find(read.begin(), read.end(), "speedup_vs_best_baseline"), read.end());
}

TEST(FusedProblem, GridRunsComponentsAndBaselinesBeforeTheFusedKernels) {
  GridSpec g;
  g.ops = {Op::gemm_rs, Op::ag_gemm};
  g.schedules = {"inter_sm", "intra_sm", "cublas_nccl", "gemm_pk", "ce_overlap"};  // any order given
  g.sizes = {4096};
  g.knob_values["comm_sms"] = {8, 16};
  const auto pts = build_points(g, 2);
  std::vector<std::string> rs;
  for (const auto& p : pts)
    if (p.op == Op::gemm_rs) rs.push_back(p.name());
  EXPECT_EQ(rs, (std::vector<std::string>{"fused/gemm_rs/gemm_pk/4096x4096x2048", "fused/gemm_rs/cublas_nccl/4096x4096x2048",
                                          "fused/gemm_rs/intra_sm/4096x4096x2048",
                                          "fused/gemm_rs/inter_sm/4096x4096x2048/comm_sms:8",
                                          "fused/gemm_rs/inter_sm/4096x4096x2048/comm_sms:16"}));
  // ce_overlap exists for the all-gather only, with its default chunk list.
  int ce = 0;
  for (const auto& p : pts)
    if (p.schedule == "ce_overlap") {
      ++ce;
      EXPECT_EQ(p.op, Op::ag_gemm);
      EXPECT_EQ(p.knob("chunks"), 4);
    }
  EXPECT_EQ(ce, 1);
  std::set<std::string> names;
  for (const auto& p : pts) EXPECT_TRUE(names.insert(p.name()).second) << p.name();
}

TEST(FusedProblem, ReductionToleranceGrowsWithTheGpuCount) {
  EXPECT_DOUBLE_EQ(reduction_tolerance(2), 1.0 / 32);
  EXPECT_DOUBLE_EQ(reduction_tolerance(1), 1.0 / 32);
  EXPECT_DOUBLE_EQ(reduction_tolerance(8), 1.0 / 8);
}

// The full warm-up wherever the GPU may have idled or run other work; the short one only right
// after another point of the same operator and shape; every point's full one when asked.
TEST(FusedProblem, FullWarmUpAfterIdleOrANewShapeShortOtherwise) {
  const WarmupPolicy policy;  // 100 ms full, 2 ms short, no gap, 10 ms of idle at most
  WarmupState next;
  next.first_point = false;
  next.idle_ms = 3;
  EXPECT_EQ(point_warmup(policy, next).ms, 2);
  EXPECT_EQ(point_warmup(policy, next).why, "short");

  WarmupState first = next;
  first.first_point = true;
  EXPECT_EQ(point_warmup(policy, first).ms, 100);
  EXPECT_EQ(point_warmup(policy, first).why, "full: first point");
  WarmupState shape = next;
  shape.shape_changed = true;
  EXPECT_EQ(point_warmup(policy, shape).ms, 100);
  WarmupState idle = next;
  idle.idle_ms = 10.5;
  EXPECT_EQ(point_warmup(policy, idle).ms, 100);
  EXPECT_EQ(point_warmup(policy, idle).why, "full: idle 10.5 ms");
  idle.idle_ms = 10;  // the bound itself is not idle
  EXPECT_EQ(point_warmup(policy, idle).ms, 2);

  WarmupPolicy gap = policy;
  gap.gap_ms = 1;  // a gap is idle on purpose, before every point
  EXPECT_EQ(point_warmup(gap, next).ms, 100);
  WarmupPolicy every = policy;
  every.every_point = true;
  EXPECT_EQ(point_warmup(every, next).ms, 100);
  EXPECT_EQ(point_warmup(every, next).why, "full: every point");
  WarmupPolicy none = policy;
  none.full_ms = 0;  // --warmup-ms=0: no warm-up at all, the short one included
  EXPECT_EQ(point_warmup(none, next).ms, 0);
  EXPECT_EQ(point_warmup(none, first).ms, 0);
}

// ---- the cost model ----
#ifdef PKBENCH_FUSED_MODEL
namespace {
const std::string kDir = PKBENCH_FIXTURE_DIR;
model::Ceilings fixture_ceilings() {
  model::Ceilings c = model::read_ceilings(kDir + "/fused_gemm.csv", kDir + "/fused_transfer.csv", kDir + "/fused_sync.csv",
                                           kDir + "/fused_points.csv");
  model::read_communicator_rates(c, kDir + "/fused_comm_only.csv");
  return c;
}
}  // namespace

TEST(FusedCostModel, CeilingsComeFromTheRightRows) {
  const model::Ceilings c = fixture_ceilings();
  EXPECT_DOUBLE_EQ(c.link_bidir_gbps, 300);   // tma_tile bidir; the failed reg row and the copy engine are not used
  EXPECT_DOUBLE_EQ(c.link_oneway_gbps, 400);
  EXPECT_DOUBLE_EQ(c.hbm_gbps, 3000);         // 2 x the best local copy (the copy engine's 1500)
  ASSERT_EQ(c.link_by_sms.size(), 3u);        // TMA fig3: 8, 16, 32 SMs; the best direction per count
  EXPECT_DOUBLE_EQ(c.link_by_sms[1].second, 200);
  EXPECT_DOUBLE_EQ(c.launch_ns, 2000);
  EXPECT_DOUBLE_EQ(c.sync_gpu_ns, 500);
  EXPECT_DOUBLE_EQ(c.sync_sys_ns, 1000);
  EXPECT_DOUBLE_EQ(c.mbarrier_ns, 60);
  EXPECT_EQ(c.sm_count, 132);
  // The fused CSV's gemm_pk row wins for its shape; the largest measured shape otherwise.
  EXPECT_DOUBLE_EQ(c.gemm_tflops(Shape{4096, 4096, 2048}, 132), 600);
  EXPECT_DOUBLE_EQ(c.gemm_tflops(Shape{4096, 2048, 4096}, 132), 700);
  // gemm.csv's SM curve (c1 only): 100 SMs = 500/600 of the rate, 116 halfway to 132.
  EXPECT_NEAR(c.gemm_tflops(Shape{4096, 4096, 2048}, 100), 500, 1e-9);
  EXPECT_NEAR(c.gemm_tflops(Shape{4096, 4096, 2048}, 116), 550, 1e-9);
}

namespace {
// A GEMM+RS point of the 4096 x 4096 x 2048 shape the cost-model tests predict.
model::FusedPoint gemm_rs_point(const char* schedule, int world, int compute_sms, int comm_sms = 0) {
  model::FusedPoint p;
  p.op = Op::gemm_rs;
  p.schedule = schedule;
  p.shape = Shape{4096, 4096, 2048};
  p.world = world;
  p.compute_sms = compute_sms;
  p.comm_sms = comm_sms;
  return p;
}
}  // namespace

TEST(FusedCostModel, PredictionsAddTheTermsOfThePaperFormula) {
  const model::Ceilings c = fixture_ceilings();
  model::FusedPoint p = gemm_rs_point("intra_sm", 2, 132);
  const double mb = 4096.0 * 4096 * 2, ab = 4096.0 * 2048 * 2;
  model::Prediction r = model::predict(c, p);
  EXPECT_NEAR(r.comp_us, 2.0 * 4096 * 4096 * 2048 / 600e12 * 1e6, 1e-9);
  EXPECT_NEAR(r.mem_us, (2 * ab + 2 * mb + mb / 2) / 3000e9 * 1e6, 1e-9);
  EXPECT_NEAR(r.comm_us, 0.5 * mb / 300e9 * 1e6, 1e-9);
  EXPECT_NEAR(r.non_overlap_us, (132 * 65536.0 * 0.5) / 300e9 * 1e6 + (mb / 2) / 3000e9 * 1e6, 1e-9);
  EXPECT_NEAR(r.sync_us, 2.0, 1e-12);    // zeroed + done handshakes, 1000 ns each
  EXPECT_NEAR(r.launch_us, 4.0, 1e-12);  // the zeroing and the kernel
  EXPECT_EQ(r.dominant, "comp");
  EXPECT_NEAR(r.total_us, r.launch_us + r.comp_us + r.non_overlap_us + r.sync_us, 1e-9);
  EXPECT_NEAR(r.total_us, 140.54, 0.01);

  // Inter-SM GEMM+RS: T_comm and the last wave's tail at the communicator's own rate
  // (fused_comm_only.csv: 160 GB/s on 16 SMs), not the transfer study's TMA curve (200).
  p.schedule = "inter_sm";
  p.comm_sms = 16;
  p.compute_sms = 116;
  r = model::predict(c, p);
  EXPECT_NEAR(r.comp_us, 2.0 * 4096 * 4096 * 2048 / 550e12 * 1e6, 1e-9);
  EXPECT_NEAR(r.comm_us, 0.5 * mb / 160e9 * 1e6, 1e-9);
  EXPECT_NEAR(r.non_overlap_us, 0.5 * 116 * 65536.0 / 160e9 * 1e6, 1e-9);
  EXPECT_NEAR(r.sync_us, 1.5, 1e-12);  // the owner's flag + one inter-SM hand-off
  EXPECT_NEAR(r.total_us, r.launch_us + r.comp_us + r.non_overlap_us + r.sync_us, 1e-9);
  p.comm_sms = 8;
  p.compute_sms = 124;
  r = model::predict(c, p);
  EXPECT_EQ(r.dominant, "comm");                        // 8 SMs: 80 GB/s
  EXPECT_NEAR(r.comm_us, 0.5 * mb / 80e9 * 1e6, 1e-9);  // 209.7 us, the communicator-only row's time
  // AG+GEMM inter-SM keeps the transfer study's TMA curve (16 SMs: 200 GB/s).
  p.op = Op::ag_gemm;
  p.shape = Shape{4096, 2048, 4096};
  p.comm_sms = 16;
  p.compute_sms = 116;
  EXPECT_NEAR(model::predict(c, p).comm_us, 0.5 * 4096.0 * 4096 * 2 / 200e9 * 1e6, 1e-9);
}

TEST(FusedCostModel, CommunicatorRatesFromTheCommunicatorOnlyRows) {
  const model::Ceilings c = fixture_ceilings();
  // GEMM+RS moves (w-1)/w of C = 16 MiB at 4096x4096: 8 SMs in 209.7 us = 80 GB/s; of the two
  // 16-SM rows the faster (160 GB/s); 32 SMs 256 GB/s; the status-error row and AG ignored.
  const auto& rs = c.communicator.at({Op::gemm_rs, 2});
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_DOUBLE_EQ(rs[0].first, 8);
  EXPECT_NEAR(rs[0].second, 80, 1e-9);
  EXPECT_NEAR(rs[1].second, 160, 1e-9);
  EXPECT_NEAR(rs[2].second, 256, 1e-9);
  // GEMM+AR moves twice that: 32 MiB in 262.1 us on 8 SMs = 128 GB/s.
  EXPECT_NEAR(c.communicator.at({Op::gemm_ar, 2})[0].second, 128, 1e-9);
  EXPECT_FALSE(c.communicator.count({Op::ag_gemm, 2}));
  // T_comm between and beyond the measured SM counts: linear between, the smallest count's
  // per-SM rate below it, the largest count's rate above it.
  model::FusedPoint p = gemm_rs_point("inter_sm", 2, 0);
  const double bytes = 0.5 * 4096.0 * 4096 * 2;
  for (const auto& [sms, gbps] : std::vector<std::pair<int, double>>{{12, 120}, {24, 208}, {4, 40}, {64, 256}}) {
    p.comm_sms = sms;
    p.compute_sms = 132 - sms;
    EXPECT_NEAR(model::predict(c, p).comm_us, bytes / (gbps * 1e9) * 1e6, 1e-9) << sms << " SMs";
  }
  p.op = Op::gemm_ar;
  p.comm_sms = 16;
  p.compute_sms = 116;
  EXPECT_NEAR(model::predict(c, p).comm_us, 2 * bytes / 256e9 * 1e6, 1e-9);
  // Another GPU count has no rate: refused, not guessed.
  p.world = 4;
  EXPECT_THROW(model::predict(c, p), std::runtime_error);
}

TEST(FusedCostModel, CommunicatorOnlyInputsRefused) {
  model::Ceilings c;
  try {
    model::read_communicator_rates(c, kDir + "/fused_comm_only_no_time.csv");
    FAIL() << "a communicator-only CSV without time_us_median was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("time_us_median"), std::string::npos) << e.what();
  }
  try {
    model::read_communicator_rates(c, kDir + "/fused_points.csv.missing");
    FAIL() << "a missing communicator-only CSV was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fused_points.csv.missing"), std::string::npos) << e.what();
  }
  // One GPU moves no bytes: its rows give no rate (not a rate of 0), so a file of them alone has none.
  try {
    model::read_communicator_rates(c, kDir + "/fused_comm_only_one_gpu.csv");
    FAIL() << "communicator-only rows of one GPU gave a rate";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("on 2 or more GPUs"), std::string::npos) << e.what();
  }
}

TEST(FusedCostModel, OneGpuInterSmPointsNeedNoCommunicatorRate) {
  // The rule run.sh and the model's --regenerate ask (needs_communicator): one GPU (one
  // rank) communicates nothing, so --regenerate runs the model on such a fused CSV without --comm-only.
  model::Ceilings c = model::read_ceilings(kDir + "/fused_gemm.csv", kDir + "/fused_transfer.csv",
                                           kDir + "/fused_sync.csv", kDir + "/fused_points.csv");
  model::FusedPoint p = gemm_rs_point("inter_sm", 1, 116, 16);
  EXPECT_FALSE(model::needs_communicator(p));
  const model::Prediction r = model::predict(c, p);
  EXPECT_EQ(r.comm_us, 0);
  EXPECT_EQ(r.non_overlap_us, 0);
  p.world = 2;
  EXPECT_TRUE(model::needs_communicator(p));
  EXPECT_THROW(model::predict(c, p), std::runtime_error);
}

TEST(FusedCostModel, BestSplitAndWhenCommunicationHides) {
  const model::Ceilings c = fixture_ceilings();
  const auto pts = model::read_fused_points(kDir + "/fused_points.csv");
  ASSERT_EQ(pts.size(), 6u);  // intra/inter rows with status ok only
  model::FusedPoint rs = pts[1];
  EXPECT_EQ(model::predict_best_split(c, rs, {8, 16, 32}), 16);
  // The paper's numbers: s = 2, R = 989 TFLOP/s, B = 450 GB/s -> K >= 2197.
  EXPECT_NEAR(model::hide_k(989, 450, 1), 2197.8, 0.1);
  EXPECT_NEAR(model::hide_k(989, 450, 2), 2197.8 / 2, 0.1);
  EXPECT_DOUBLE_EQ(model::interpolate({{8, 100}, {16, 200}}, 12), 150);
  EXPECT_DOUBLE_EQ(model::interpolate({{8, 100}, {16, 200}}, 4), 50);
  EXPECT_DOUBLE_EQ(model::interpolate({{8, 100}, {16, 200}}, 64), 200);
}

TEST(FusedCostModel, MissingCeilingsAreNamed) {
  try {
    model::read_ceilings("", kDir + "/fused_transfer.csv", kDir + "/fused_gemm.csv", "");
    FAIL() << "a gemm CSV passed as the sync CSV was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fused_gemm.csv"), std::string::npos) << e.what();
  }
}
#endif
