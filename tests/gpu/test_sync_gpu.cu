// Every synchronisation variant completes with its counters at the expected values (the
// variants check them and throw otherwise), and a spin-wait whose partner never starts
// ends with a timeout well within a second.
#include <gtest/gtest.h>

#include <chrono>

#include "gpu_test_util.h"
#include "kernels/sync_signal.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/peer_group.h"
#include "microbench/sync/sync_common.h"

using namespace pk;
using namespace pk::sync;

TEST(SyncGpu, EveryVariantCompletes) {
  PK_REQUIRE_GPU();
  Topology topo = discover_topology();
  auto group = make_single_process_group(topo);
  SyncOptions opt;
  opt.iters = 200;
  opt.warmup_iters = 10;
  SyncContext ctx(topo, *group, opt);
  std::vector<Variant> v;
  add_host_variants(v);
  add_intra_sm_variants(v);
  add_inter_sm_variants(v, topo.gpus[0].sm_count);
  add_cross_gpu_variants(v, topo.count());
  add_library_variants(v);
  int ran = 0;
  for (const auto& x : v) {
    if (x.gpus_needed > topo.count()) continue;
    SCOPED_TRACE(x.name());
    LatencyResult r;
    ASSERT_NO_THROW(r = x.run(ctx));
    ASSERT_FALSE(r.ns.empty());
    for (double ns : r.ns) ASSERT_GE(ns, 0);
    if (x.level == "inter_sm" && x.primitive == "flag_pingpong") EXPECT_NE(r.sm_a, r.sm_b);
    ++ran;
  }
  EXPECT_GT(ran, 20);
}

TEST(SyncGpu, MissingPartnerTimesOutWithinASecond) {
  PK_REQUIRE_GPU();
  StatusBoard status;
  PK_CUDA_CHECK(cudaSetDevice(0));
  int* flags = nullptr;
  uint32_t* cycles = nullptr;
  TimingRecord* rec = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&flags, 256));
  PK_CUDA_CHECK(cudaMemset(flags, 0, 256));
  PK_CUDA_CHECK(cudaMalloc(&cycles, 4096));
  PK_CUDA_CHECK(cudaMalloc(&rec, sizeof(TimingRecord)));
  PingPongSide init{flags + 32, flags, true, cycles, rec, nullptr};
  const auto t0 = std::chrono::steady_clock::now();
  flag_pingpong_kernel<RedReleaseSys><<<1, 32>>>(init, init, 100, status.deadline(0, 100));  // no responder
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 1000);
  try {
    status.check({0});
    FAIL() << "no timeout reported";
  } catch (const DeviceFailure& e) {
    EXPECT_NE(std::string(e.what()).find("timeout waiting for flag"), std::string::npos) << e.what();
  }
  cudaFree(flags);
  cudaFree(cycles);
  cudaFree(rec);
}
