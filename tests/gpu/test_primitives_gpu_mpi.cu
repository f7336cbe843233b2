// The primitives study on the GPU with one process per GPU (mpirun -np 2, PeerMode ipc):
// NVSHMEM (which needs it) and NCCL's device API built from a unique id broadcast over MPI.
// Every rank runs every test in the same order (the runners are collective).
#include "tests/gpu/primitives_gpu_fixture.h"
#include "microbench/harness/gpu_test_support.h"

using namespace pk;
using namespace pk::prim;
using namespace pk::prim::testing;

class PrimitivesMpi : public ::testing::TestWithParam<std::string> {};

TEST_P(PrimitivesMpi, ElementPutMovesTheRightValues) {
  PK_PRIM_REQUIRE_WORLD();
  const std::string mode = GetParam() == kStyleNvshmem ? "blocking" : "st";
  for (const char* scope : {"thread", "block"}) {
    PK_PRIM_RUN(row, find_spec({{"op", "put"}, {"style", GetParam()}, {"metric", kMetricLatency}, {"elem_bytes", "4"},
                                {"scope", scope}, {"mode", mode}}));
    EXPECT_EQ(row["verified"], "yes") << scope;
  }
}

TEST_P(PrimitivesMpi, GetFollowsTheChain) {
  PK_PRIM_REQUIRE_WORLD();
  PK_PRIM_RUN(row, find_spec({{"op", "get"}, {"style", GetParam()}, {"placement", "peer_l2_resident"},
                              {"memory", GetParam() == kStyleNvshmem ? "nvshmem_heap" : "nccl_window"}}));
  EXPECT_EQ(row["verified"], "yes");
}

TEST_P(PrimitivesMpi, RegisterValuedPutLandsWhole) {
  PK_PRIM_REQUIRE_WORLD();
  PK_PRIM_RUN(row, find_spec({{"op", "put"}, {"style", GetParam()}, {"mode", "reg"}, {"metric", kMetricLatency}}));
  EXPECT_EQ(row["verified"], "yes");
}

TEST_P(PrimitivesMpi, PutWithSignalCarriesItsData) {
  PK_PRIM_REQUIRE_WORLD();
  PK_PRIM_RUN(row, find_spec({{"op", "put_signal"}, {"style", GetParam()}}));
  EXPECT_EQ(row["data_mismatches"], "0");
}

TEST_P(PrimitivesMpi, LonelyWaitTimesOut) {
  PK_PRIM_REQUIRE_WORLD();
  PK_PRIM_OR_SKIP(double, ms, lonely_wait(*world().ctx, GetParam()));
  EXPECT_LT(ms, timeout_hang_catcher_ms());
}

// The headline NVSHMEM signal rows wait with the library's call alone (as its perftests do),
// behind a bounded handshake; the labelled bounded-poll variant still runs; every row names
// the library version the loaded libnvshmem_host reports.
TEST(PrimitivesMpiNvshmem, SignalRowsWaitWithTheApiAloneAndNameTheRunningVersion) {
  PK_PRIM_REQUIRE_WORLD();
  for (const char* mode : {"set", "add", kNvshmemBoundedMode}) {
    const Spec spec = find_spec({{"op", "signal"}, {"style", kStyleNvshmem}, {"mode", mode}});
    const bool api_alone = std::string(mode) != kNvshmemBoundedMode;
    EXPECT_EQ(spec.call.find("bounded") == std::string::npos, api_alone) << spec.call;
    PK_PRIM_RUN(row, spec);
    EXPECT_EQ(row["verified"], "yes") << mode;
    EXPECT_EQ(row["library"].rfind("NVSHMEM ", 0), 0u) << row["library"];
    EXPECT_NE(row["library"].find("OpenSHMEM"), std::string::npos) << row["library"];
    std::printf("nvshmem signal %s: %s ns one way (%s)\n", mode, row["value"].c_str(), row["library"].c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Libraries, PrimitivesMpi,
                         ::testing::Values(std::string(kStyleNvshmem), std::string(kStyleNcclDev)));

int main(int argc, char** argv) {
  init_cuda_environment();
  ::testing::InitGoogleTest(&argc, argv);
  setup(PeerMode::ipc, &argc, &argv);
  if (world().comm && world().comm->rank() != 0) {
    // One report is enough; every rank still runs every test.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  const bool failed = world().comm ? world().comm->any(rc != 0) : rc != 0;
  const bool skipped = !world().why_not.empty();
  if (skipped && world().comm && world().comm->rank() == 0) std::printf("SKIPPED: %s\n", world().why_not.c_str());
  teardown();
  return failed ? 1 : skipped ? 77 : 0;
}
