// The sync summary on a fixture CSV (hand-written numbers in the study's schema), and the
// sync CSV schema.
#include <gtest/gtest.h>

#include <set>

#include "microbench/harness/metadata.h"
#include "microbench/sync/sync_analysis.h"

using namespace pk;
using namespace pk::sync;

static const std::string kSyncFixture = PKBENCH_FIXTURE_DIR "/sync_fixture.csv";

TEST(SyncSummary, FindsRowsByLevelPrimitiveAndSemantics) {
  auto rows = read_sync_csv(kSyncFixture);
  ASSERT_EQ(rows.size(), 9u);
  const SyncRow* r = find_sync(rows, "cross_gpu", "flag_pingpong", "sys", "release_acquire", "local_write_remote_poll");
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->round_trip_ns, 4200);
  EXPECT_EQ(find_sync(rows, "cross_gpu", "gpu_barrier", "", ""), nullptr);  // skipped rows never match
  EXPECT_THROW(read_sync_csv("/nonexistent.csv"), std::runtime_error);
}

TEST(SyncSummary, PutsThePapersNumbersBesideOursWithRatios) {
  std::string md = sync_summary_markdown(read_sync_csv(kSyncFixture));
  EXPECT_NE(md.find("| intra-SM synchronisation (mbarrier) | ~64 ns | 50 ns one-way"), std::string::npos) << md;
  EXPECT_NE(md.find("| inter-SM synchronisation through L2/HBM | ~832 ns | 700 ns one-way"), std::string::npos) << md;
  EXPECT_NE(md.find("| inter-SM / intra-SM | ~13x | 14.00x"), std::string::npos) << md;
  EXPECT_NE(md.find("| cross-GPU / inter-SM | - | 2.00x"), std::string::npos) << md;
  // Release ordering's cost: release/acquire (1400 ns) against relaxed (1100 ns), one-way.
  EXPECT_NE(md.find("| cross-GPU release/acquire - relaxed | - | 300 ns (1400 ns vs 1100 ns)"), std::string::npos) << md;
  EXPECT_NE(md.find("pkbench_primitives"), std::string::npos) << md;  // the 4.5x lives with the real libraries
  EXPECT_EQ(md.find("up to 4.5x | "), std::string::npos) << md;
  EXPECT_NE(md.find("skipped: needs 8 GPUs"), std::string::npos) << md;
  EXPECT_NE(md.find("measured globaltimer_step: 32 ns"), std::string::npos) << md;
}
