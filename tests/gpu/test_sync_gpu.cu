// Every synchronisation variant completes with its counters at the expected values (the
// variants check them and throw otherwise) in every peer mode, and a spin-wait whose
// partner never starts ends with a timeout well within a second.
#include <gtest/gtest.h>

#include <chrono>

#include "tests/gpu/gpu_test_util.h"
#include "kernels/sync_signal.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/peer_group.h"
#include "microbench/sync/sync_common.h"

using namespace pk;
using namespace pk::sync;

class SyncGpu : public ::testing::TestWithParam<PeerMode> {};

TEST_P(SyncGpu, EveryVariantCompletes) {
  PK_REQUIRE_GPU();
  PeerGroup group(test_comm(), GetParam());
  SyncOptions opt;
  opt.iters = 200;
  opt.warmup_iters = 10;
  SyncContext ctx(group, opt);
  const std::vector<Variant> v = all_variants({group.topology().gpus[0].sm_count, group.size()});
  int ran = 0;
  for (const auto& x : v) {
    if (x.gpus_needed > group.size()) continue;
    SCOPED_TRACE(x.name());
    LatencyResult r;
    std::string err;
    try {
      r = x.gpus_needed == 1 ? ctx.solo(0, [&] { return x.run(ctx); }) : x.run(ctx);
    } catch (const std::exception& e) {
      err = e.what();
    }
    ASSERT_EQ(err, "");  // every rank threw alike (the variants agree on failures)
    ASSERT_FALSE(r.ns.empty());
    for (double ns : r.ns) ASSERT_GE(ns, 0);
    if (x.level == "inter_sm" && x.primitive == "flag_pingpong") EXPECT_NE(r.sm_a, r.sm_b);
    ++ran;
  }
  EXPECT_GT(ran, 20);
}

INSTANTIATE_TEST_SUITE_P(PeerModes, SyncGpu, ::testing::ValuesIn(test_modes()), mode_param_name);

TEST(SyncGpuLocal, MissingPartnerTimesOut) {
  PK_REQUIRE_GPU();
  PeerGroup group(test_comm(), test_modes().front());
  StatusBoard status(group);
  const int g = group.local_gpus().front();
  group.set_device(g);
  int* flags = nullptr;
  uint32_t* cycles = nullptr;
  TimingRecord* rec = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&flags, 256));
  PK_CUDA_CHECK(cudaMemset(flags, 0, 256));
  PK_CUDA_CHECK(cudaMalloc(&cycles, 4096));
  PK_CUDA_CHECK(cudaMalloc(&rec, sizeof(TimingRecord)));
  PingPongSide init{flags + 32, flags, true, cycles, rec, nullptr};
  const auto t0 = std::chrono::steady_clock::now();
  flag_pingpong_kernel<RedReleaseSys><<<1, 32>>>(init, init, 100, status.deadline(g, 100));  // no responder
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, timeout_hang_catcher_ms());
  try {
    status.check({g});
    ADD_FAILURE() << "no timeout reported";
  } catch (const DeviceFailure& e) {
    EXPECT_NE(std::string(e.what()).find("timeout waiting for flag"), std::string::npos) << e.what();
  }
  cudaFree(flags);
  cudaFree(cycles);
  cudaFree(rec);
}
