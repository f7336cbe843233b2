// Collective study, CPU: the line geometry of the LL all-gather / reduce-scatter /
// all-to-all (kernels/collectives/segments_ll.cuh). A block's lines cover its elements
// exactly (odd counts: a partial last line, never a line across two blocks), and the
// kernel's (block, line) indexing, replayed on the host, reads only the rank's input,
// writes every output element exactly once, and matches the reference.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/collectives/segments_ll.cuh"
#include "microbench/collectives/coll_problem.h"

using namespace pk::coll;

namespace {
const uint64_t kCounts[] = {1, 2, 3, 4, 7, 8, 1001, 4096, 65537};
}

TEST(CollLl, LinesCoverEachBlockExactly) {
  for (uint64_t eb : {2ull, 4ull})
    for (uint64_t count : kCounts) {
      const uint64_t per = LlSegConfig::kPayloadPerLine / eb, lines = LlSegConfig::lines(count, eb);
      EXPECT_GE(lines * per, count) << count;
      EXPECT_LT((lines - 1) * per, count) << count;  // no empty line
      EXPECT_EQ(LlSegConfig::whole_lines(count, eb), lines * per == count) << count;
    }
  EXPECT_EQ(LlSegConfig::lines(7, 2), 2u);
  EXPECT_EQ(LlSegConfig::lines(1, 4), 1u);
  EXPECT_FALSE(LlSegConfig::whole_lines(1001, 2));
  EXPECT_TRUE(LlSegConfig::whole_lines(1002, 4));
}

TEST(CollLl, ScratchIsTwoParitiesOfOneBlockPerSource) {
  EXPECT_EQ(LlSegConfig::scratch_bytes(1, 2, 2), 2u * 2 * 1 * 16);
  EXPECT_EQ(LlSegConfig::scratch_bytes(65537, 4, 2), 2u * 2 * 32769 * 16);
  EXPECT_EQ(LlSegConfig::scratch_bytes(1u << 18, 4, 8), 32ull << 20);  // a 1 MiB block on 8 ranks
}

// The kernel's indexing on the host: push items (k >= 1, u) from `in + r*stride`, receive
// items (k, u) (copies) or u (reduction) into the output, element by element within a line.
TEST(CollLl, HostReplayOfTheIndexingMatchesReference) {
  const uint64_t seed = 11;
  for (int n : {1, 2, 3, 8})
    for (const char* coll : {"all_gather", "reduce_scatter", "all_to_all"})
      for (DType t : {DType::bf16, DType::f32})
        for (uint64_t count : {1ull, 3ull, 7ull, 1001ull}) {
          const Problem p = make_problem_count(coll, t, count, n, {});
          const uint64_t eb = p.elem_bytes(), per = LlSegConfig::kPayloadPerLine / eb;
          const uint64_t lines = LlSegConfig::lines(count, eb);
          const uint64_t stride = p.layout == kAllGather ? 0 : count;
          const int dt = dtype_code(t);
          // landing[owner][src][u * per + i]: the payload elements, as the inputs' values
          std::vector<std::vector<std::vector<double>>> land(
              n, std::vector<std::vector<double>>(n, std::vector<double>(lines * per, 0.0)));
          for (int self = 0; self < n; ++self)
            for (uint64_t it = 0; it < static_cast<uint64_t>(n - 1) * lines; ++it) {
              const int r = (self + 1 + static_cast<int>(it / lines)) % n;
              const uint64_t u = it % lines;
              for (uint64_t i = 0; i < per && u * per + i < count; ++i) {
                const uint64_t src = r * stride + u * per + i;
                ASSERT_LT(src, p.in_elems) << p.describe();
                land[r][self][u * per + i] = input_value(seed, self, src, dt);
              }
            }
          for (int self = 0; self < n; ++self) {
            std::vector<int> writes(p.out_elems, 0);
            std::vector<double> out(p.out_elems, 0.0);
            if (p.layout == kReduceScatter) {
              for (uint64_t u = 0; u < lines; ++u)
                for (uint64_t i = 0; i < per && u * per + i < count; ++i) {
                  const uint64_t j = u * per + i;
                  double acc = input_value(seed, self, self * count + j, dt);
                  for (int k = 1; k < n; ++k) acc += land[self][(self + k) % n][j];
                  ASSERT_LT(j, p.out_elems);
                  out[j] = acc;
                  ++writes[j];
                }
            } else {
              for (uint64_t it = 0; it < static_cast<uint64_t>(n) * lines; ++it) {
                const int k = static_cast<int>(it / lines), s = (self + k) % n;
                const uint64_t u = it % lines;
                for (uint64_t i = 0; i < per && u * per + i < count; ++i) {
                  const uint64_t j = s * count + u * per + i;
                  ASSERT_LT(j, p.out_elems) << p.describe();
                  out[j] = k == 0 ? input_value(seed, self, self * stride + u * per + i, dt)
                                  : land[self][s][u * per + i];
                  ++writes[j];
                }
              }
            }
            const RefSpec ref = p.ref(self, seed);
            for (uint64_t j = 0; j < p.out_elems; ++j) {
              ASSERT_EQ(writes[j], 1) << p.describe() << " rank " << self << " element " << j;
              ASSERT_NEAR(out[j], ref_value(ref, j, nullptr), 1e-12) << p.describe();
            }
          }
        }
}
