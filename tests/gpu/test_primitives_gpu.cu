// The primitives study on the GPU, one process (PeerMode single on two GPUs or more; on one GPU,
// two virtual ranks on it, so a one-GPU machine and the sanitizers reach every kernel): every
// style's put and get moves the right values (the runners poison, fill, verify and throw on a
// mismatch), a signal carries its data, and a library-style wait with no partner times out cleanly.
#include "tests/gpu/primitives_gpu_fixture.h"
#include "microbench/harness/gpu_test_support.h"

using namespace pk;
using namespace pk::prim;
using namespace pk::prim::testing;

namespace {
struct Env : ::testing::Environment {
  void SetUp() override {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess) cudaGetLastError();  // setup() names the reason
    setup(gpus >= 2 ? PeerMode::single : PeerMode::virt);
  }
  void TearDown() override { teardown(); }
};
[[maybe_unused]] auto* const g_env = ::testing::AddGlobalTestEnvironment(new Env);
}  // namespace

class PrimitivesGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(PrimitivesGpu, ElementPutMovesTheRightValues) {
  PK_PRIM_REQUIRE_WORLD();
  const std::string style = GetParam();
  if (style == kStyleEmulation) {
    PK_PRIM_RUN(row, find_spec({{"op", "put"}, {"style", style}}));
    EXPECT_EQ(row["verified"], "yes");
    return;
  }
  const std::string mode = style == kStyleNvshmem ? "nbi" : "st";
  for (const char* metric : {kMetricLatency, kMetricGbps})
    for (const char* elem : {"4", "16"}) {
      PK_PRIM_RUN(row, find_spec({{"op", "put"}, {"style", style}, {"metric", metric}, {"elem_bytes", elem},
                                  {"scope", "warp"}, {"mode", mode}}));
      EXPECT_EQ(row["verified"], "yes") << metric << " " << elem;
      EXPECT_GT(std::stod(row["value"]), 0.0);
    }
}

TEST_P(PrimitivesGpu, GetFollowsTheChain) {
  PK_PRIM_REQUIRE_WORLD();
  for (const char* placement : {"peer_l2_resident", "peer_l2_miss"}) {
    PK_PRIM_RUN(row, find_spec({{"op", "get"}, {"style", GetParam()}, {"placement", placement},
                                {"memory", GetParam() == kStyleNvshmem ? "nvshmem_heap"
                                           : GetParam() == kStyleNcclDev ? "nccl_window" : "symbuf"}}));
    EXPECT_EQ(row["verified"], "yes") << placement;
  }
}

TEST_P(PrimitivesGpu, LonelyWaitTimesOut) {
  PK_PRIM_REQUIRE_WORLD();
  PK_PRIM_OR_SKIP(double, ms, lonely_wait(*world().ctx, GetParam()));
  EXPECT_LT(ms, timeout_hang_catcher_ms()) << "timeout " << world().ctx->opt().timeout_ms << " ms";
  // The next run on the same GPU still works (the timed-out kernel left nothing behind).
  if (GetParam() != kStyleNvshmem) {
    PK_PRIM_RUN(row, find_spec({{"op", "get"}, {"style", kStylePk}, {"placement", "peer_l2_resident"},
                                {"memory", "symbuf"}, {"ordering", kOrderWeak}}));
    EXPECT_EQ(row["verified"], "yes");
  }
}

INSTANTIATE_TEST_SUITE_P(Styles, PrimitivesGpu,
                         ::testing::Values(std::string(kStylePk), std::string(kStyleEmulation),
                                           std::string(kStyleNcclDev)));

TEST(PrimitivesGpuSignals, DataThenReleaseFlagArrivesWhole) {
  PK_PRIM_REQUIRE_WORLD();
  for (const char* ordering : {kOrderReleaseAcquire, kOrderAtomic, kOrderFenceThenRelaxed}) {
    PK_PRIM_RUN(row, find_spec({{"op", "put_signal"}, {"style", kStylePk}, {"ordering", ordering}}));
    EXPECT_EQ(row["data_mismatches"], "0") << ordering;
    EXPECT_EQ(row["verified"], "yes");
  }
}

TEST(PrimitivesGpuSignals, LowLatencyProtocolCarriesDataWithoutFences) {
  PK_PRIM_REQUIRE_WORLD();
  PK_PRIM_RUN(row, find_spec({{"op", "put_signal"}, {"style", kStylePk}, {"mode", "ll"}}));
  EXPECT_EQ(row["data_mismatches"], "0");
  EXPECT_EQ(row["verified"], "yes");
}

TEST(PrimitivesGpuSignals, RegisterValuedPutsLandWhole) {
  PK_PRIM_REQUIRE_WORLD();
  for (const char* style : {kStylePk, kStyleNcclDev})
    for (const char* metric : {kMetricLatency, kMetricGbps}) {
      PK_PRIM_RUN(row, find_spec({{"op", "put"}, {"style", style}, {"mode", "reg"}, {"metric", metric}}));
      EXPECT_EQ(row["verified"], "yes") << style << " " << metric;
    }
}

TEST(PrimitivesGpuSignals, BarriersComplete) {
  PK_PRIM_REQUIRE_WORLD();
  for (const char* ordering : {kOrderReleaseAcquire, kOrderRelaxed}) {
    PK_PRIM_RUN(row, find_spec({{"op", "barrier"}, {"style", kStylePk}, {"ordering", ordering}}));
    EXPECT_EQ(row["verified"], "yes") << ordering;
  }
}

TEST(PrimitivesGpuSignals, NvshmemIsSkippedInOneProcess) {
  PK_PRIM_REQUIRE_WORLD();
  EXPECT_THROW(run_spec(*world().ctx, find_spec({{"op", "signal"}, {"style", kStyleNvshmem}, {"mode", "set"}})),
               SkipPoint);
}
