// CPU tests of the GEMM study: tile orders (every output tile owned exactly once for any SM
// count, with and without clusters; grouped and shard-arrival orders are permutations),
// shape parsing and the checks that refuse what a kernel variant cannot run.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

#include "kernels/gemm/schedule.cuh"
#include "microbench/gemm/autotune_cache.h"
#include "microbench/gemm/gemm_problem.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"

using namespace pk;
using namespace pk::gemm;

namespace {

// Every (m, n) in tiles_m x tiles_n exactly once over indices 0 .. tiles-1.
template <class Order>
void expect_permutation(int tiles_m, int tiles_n, Order order) {
  std::vector<int> seen(tiles_m * tiles_n, 0);
  for (int i = 0; i < tiles_m * tiles_n; ++i) {
    const TileCoord t = order(i);
    ASSERT_GE(t.m, 0);
    ASSERT_LT(t.m, tiles_m);
    ASSERT_GE(t.n, 0);
    ASSERT_LT(t.n, tiles_n);
    ++seen[t.m * tiles_n + t.n];
  }
  for (int v : seen) ASSERT_EQ(v, 1);
}

}  // namespace

TEST(GemmSchedule, GroupedOrderIsAPermutation) {
  for (int tm : {1, 2, 3, 7, 16, 33, 64})
    for (int tn : {1, 5, 8, 32})
      for (int g : {0, 1, 3, 8, 16, 40}) {
        SCOPED_TRACE(std::to_string(tm) + "x" + std::to_string(tn) + " group " + std::to_string(g));
        expect_permutation(tm, tn, [&](int i) { return grouped_tile(i, tm, tn, g); });
      }
}

TEST(GemmSchedule, GroupedOrderWalksBandsColumnByColumn) {
  // 5 tile rows, bands of 2: rows {0,1}, {2,3}, {4}; inside a band, down each column.
  const std::vector<std::pair<int, int>> want = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2},
                                                 {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2},
                                                 {4, 0}, {4, 1}, {4, 2}};
  for (int i = 0; i < 15; ++i) {
    const TileCoord t = grouped_tile(i, 5, 3, 2);
    EXPECT_EQ(t.m, want[i].first) << i;
    EXPECT_EQ(t.n, want[i].second) << i;
  }
}

TEST(GemmSchedule, EveryOutputTileOwnedOnceForAnySmCount) {
  // The 8192 x 8192 grid of 128 x 256 tiles, an odd one and one smaller than the grid.
  for (auto [tm, tn] : std::vector<std::pair<int, int>>{{64, 32}, {3, 5}, {1, 1}}) {
    const int tiles = tm * tn;
    for (int blocks = 1; blocks <= 200; ++blocks) {
      std::vector<int> owner(tiles, -1);
      int total = 0;
      for (int b = 0; b < blocks; ++b) {
        int mine = 0;
        for (int t = b; t < tiles; t += blocks) {  // the kernel's loop
          const TileCoord c = grouped_tile(t, tm, tn, 16);
          ASSERT_EQ(owner[c.m * tn + c.n], -1) << "tile owned twice, blocks=" << blocks;
          owner[c.m * tn + c.n] = b;
          ++mine;
        }
        ASSERT_EQ(mine, tiles_of_block(b, blocks, tiles));
        total += mine;
      }
      ASSERT_EQ(total, tiles);
      for (int o : owner) ASSERT_GE(o, 0) << "tile never owned, blocks=" << blocks;
    }
  }
}

TEST(GemmSchedule, ClustersCoverEveryCtaTileOnce) {
  // Clusters of 2 along M: cluster tile (m, n) -> CTA tiles (2m + rank, n).
  const int tm = 6, tn = 5, cm = 2;
  for (int clusters = 1; clusters <= 40; ++clusters) {
    std::set<std::pair<int, int>> seen;
    for (int c = 0; c < clusters; ++c)
      for (int t = c; t < (tm / cm) * tn; t += clusters)
        for (int rank = 0; rank < cm; ++rank) {
          const TileCoord ct = grouped_tile(t, tm / cm, tn, 3);
          ASSERT_TRUE(seen.insert({ct.m * cm + rank, ct.n}).second);
        }
    ASSERT_EQ(static_cast<int>(seen.size()), tm * tn);
  }
}

TEST(GemmSchedule, ShardArrivalOrderIsAPermutationInArrivalOrder) {
  for (int shards : {1, 2, 4, 8})
    for (int first = 0; first < shards; ++first) {
      const int tm = 8 * shards, tn = 6;
      SCOPED_TRACE("shards " + std::to_string(shards) + " first " + std::to_string(first));
      expect_permutation(tm, tn, [&](int i) { return shard_arrival_tile(i, tm, tn, 4, shards, first); });
      // Shards come first, first+1, ... and never interleave.
      int pos = 0;
      for (int i = 0; i < tm * tn; ++i) {
        const TileCoord t = shard_arrival_tile(i, tm, tn, 4, shards, first);
        const int s = shard_of_tile_row(t.m, tm, shards);
        const int rel = (s - first + shards) % shards;
        ASSERT_GE(rel, pos);
        pos = rel;
      }
    }
}

TEST(GemmProblem, ParsesShapes) {
  const auto s = parse_shapes("8192x8192x8192, 128X256X64,8192x8192x8192");
  ASSERT_EQ(s.size(), 2u);  // duplicates dropped
  EXPECT_EQ(s[0], (Shape{8192, 8192, 8192}));
  EXPECT_EQ(s[1].str(), "128x256x64");
  EXPECT_DOUBLE_EQ(s[1].flops(), 2.0 * 128 * 256 * 64);
  for (const char* bad : {"", "8192", "8192x8192", "1x2x3x4", "0x256x64", "-128x256x64", "axbxc", "128x256x"}) {
    try {
      parse_shapes(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ArgError& e) {
      EXPECT_NE(std::string(e.what()).find("--shapes"), std::string::npos) << e.what();
    }
  }
}

TEST(GemmProblem, RefusesShapesThatDoNotFitTheTile) {
  const VariantInfo& c1 = variant_info("c1");
  const VariantInfo& c2 = variant_info("c2");
  EXPECT_NO_THROW(check_shape(c1, {3 * 128, 5 * 256, 7 * 64}));
  EXPECT_NO_THROW(check_shape(c2, {3 * 256, 5 * 256, 7 * 64}));
  try {
    check_shape(c2, {3 * 128, 5 * 256 + 8, 100});
    ADD_FAILURE() << "accepted";
  } catch (const ArgError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--shapes"), std::string::npos) << m;
    EXPECT_NE(m.find("M=384 is not a multiple of 256"), std::string::npos) << m;
    EXPECT_NE(m.find("N=1288 is not a multiple of 256"), std::string::npos) << m;
    EXPECT_NE(m.find("K=100 is not a multiple of 64"), std::string::npos) << m;
  }
  EXPECT_THROW(variant_info("c3"), ArgError);
}

TEST(GemmProblem, RefusesBlockCountsTheGpuCannotHold) {
  const VariantInfo& c1 = variant_info("c1");
  const VariantInfo& c2 = variant_info("c2");
  EXPECT_NO_THROW(check_blocks(c1, 132, 0, 132));
  EXPECT_NO_THROW(check_blocks(c1, 7, 3, 132));
  EXPECT_THROW(check_blocks(c1, 0, 0, 132), ArgError);
  EXPECT_THROW(check_blocks(c1, 130, 3, 132), ArgError);  // one block per SM, all resident
  EXPECT_THROW(check_blocks(c2, 7, 0, 132), ArgError);    // clusters of 2
  EXPECT_NO_THROW(check_blocks(c2, 6, 2, 132));
  for (const auto& v : variant_infos()) {
    EXPECT_GT(v.smem_bytes, 227u * 1024 / 2) << v.name << ": a second block must not fit on an SM";
    EXPECT_LE(v.smem_bytes, 227u * 1024) << v.name;
  }
}

TEST(GemmProblem, PointsPutCublasFirstAndNameEverything) {
  const auto pts = build_points({{256, 256, 64}}, {132, 66}, {"cublaslt", "pkbench"}, {"c1", "c2"});
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[0].name(), "gemm/cublaslt/256x256x64/sms:132");
  EXPECT_EQ(pts[1].name(), "gemm/pkbench:c1/256x256x64/sms:132");
  EXPECT_EQ(pts[3].name(), "gemm/cublaslt/256x256x64/sms:66");
  const auto& c = gemm_columns();
  std::set<std::string> s(c.begin(), c.end());
  EXPECT_EQ(s.size(), c.size());
  for (const char* need : {"impl", "m", "n", "k", "sms", "tile", "time_us_median", "tflops", "ratio_to_cublas",
                           "max_rel_err", "wrong", "status", "error", "gpu_name", "git_commit"})
    EXPECT_TRUE(s.count(need)) << need;
}

// cuBLASLt's autotuning is remembered per problem and GPU: what differs in any part of the key
// (another GPU, another SM share, shape, SM target, candidate count, workspace or timing effort)
// tunes anew.
TEST(GemmAutotuneCache, AChoiceIsReusedOnlyForTheSameProblemAndGpu) {
  AutotuneCache cache;
  // gpu, context_sms, m, n, k, sm_target, workspace_bytes, effort (candidates, rounds, launches)
  const AutotuneKey k{"0000:00:06.0", 32, 8192, 8192, 2048, 0, 32ull << 20, {8, 3, 10}};
  EXPECT_FALSE(cache.find(k));
  AutotuneChoice c;
  c.algo[0] = 66;
  c.algo[7] = 0xabc;
  c.rank = 7;
  c.tried = 8;
  cache.put(k, c);
  const auto hit = cache.find(k);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->algo, c.algo);
  EXPECT_EQ(hit->rank, 7);
  EXPECT_EQ(hit->tried, 8);
  AutotuneKey same = k;  // a copy: another point of the same problem, or a virtual rank of the same share
  EXPECT_TRUE(cache.find(same));
  const std::vector<std::function<void(AutotuneKey&)>> others = {
      [](AutotuneKey& x) { x.gpu = "0000:00:07.0"; },  [](AutotuneKey& x) { x.context_sms = 132; },
      [](AutotuneKey& x) { x.m = 16384; },            [](AutotuneKey& x) { x.n = 4096; },
      [](AutotuneKey& x) { x.k = 4096; },             [](AutotuneKey& x) { x.sm_target = 100; },
      [](AutotuneKey& x) { x.effort.candidates = 4; },       [](AutotuneKey& x) { x.workspace_bytes = 0; },
      [](AutotuneKey& x) { x.effort.rounds = 1; },    [](AutotuneKey& x) { x.effort.launches = 1; }};
  for (size_t i = 0; i < others.size(); ++i) {
    AutotuneKey o = k;
    others[i](o);
    EXPECT_FALSE(cache.find(o)) << "key change " << i;
  }
  EXPECT_EQ(cache.size(), 1u);
  cache.clear();
  EXPECT_FALSE(cache.find(k));
}
