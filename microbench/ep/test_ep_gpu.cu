// Expert-parallel study, GPU (label gpu; each test skips with the reason where it cannot run):
//   - every implementation of ep_list.h, both operations, every routing (a rank that receives
//     nothing, one expert that receives every token), T = 1, 131, 1001 (not multiples of
//     anything), several launches back to back and then the final check on fresh inputs: on
//     virtual ranks of one GPU ($PKBENCH_VIRTUAL_RANKS: ctest runs 2, 3, 4 and 8), on the
//     GPUs of one process (2 or more), or one process per GPU under mpirun; NCCL's points skip
//     where NCCL cannot run (virtual ranks: one device per rank);
//   - a rank whose peers never launch ends each kernel with a timeout, not a hang;
//   - the TokenHeader built by one warp from a route reads back the same on the other side.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "kernels/ep/ht_count.cuh"
#include "kernels/ep/route.cuh"
#include "microbench/ep/ep_runner.h"
#include "microbench/ep/ep_steps.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/gpu_test_support.h"

using namespace pk;
using namespace pk::ep;

// The communicator of this test process (tests/gpu/gpu_main.cpp).
pk::Comm& test_comm();

namespace {

std::string mode_param_name(const ::testing::TestParamInfo<PeerMode>& i) { return peer_mode_name(i.param); }


std::string hopper(const PeerGroup& g) {
  for (const GpuInfo& i : g.topology().gpus)
    if (i.cc_major != 9) return "the expert GEMM needs Hopper (sm_90a); GPU" + std::to_string(i.ordinal) + " is " + i.name;
  return "";
}

// A small shape: 24 experts per rank (the Env sets E for its rank count), TopK 8, H 512,
// H_expert 256.
EpOptions test_options(double timeout_ms) {
  EpOptions o;
  o.shape.hidden = 512;
  o.shape.experts = 48;
  o.shape.topk = 8;
  o.shape.h_expert = 256;
  o.timing = quick_test_timing(timeout_ms);
  return o;
}

struct Env {
  std::unique_ptr<PeerGroup> group;
  std::unique_ptr<Context> ctx;
  Env(PeerMode m, EpOptions o, const std::vector<Point>& points) {
    group = std::make_unique<PeerGroup>(test_comm(), m);
    o.shape.experts = 24 * group->size();
    ctx = std::make_unique<Context>(*group, o, points);
  }
};

class EpRanks : public ::testing::TestWithParam<PeerMode> {};

}  // namespace

TEST_P(EpRanks, EveryImplementationEveryRoutingOddTokensVerified) {
  if (const std::string why = need_peers(GetParam()); !why.empty()) GTEST_SKIP() << why;
  GridText g{"all", "all", "all", "1,131,1001", "2"};
  const std::vector<Point> points = plan_points(preset("smoke"), g, 512);
  Env env(GetParam(), test_options(2000), points);
  if (const std::string why = hopper(*env.group); !why.empty()) GTEST_SKIP() << why;
  PointResults results;
  Runner runner(*env.ctx, results);
  int verified = 0, skipped = 0;
  for (const Point& p : points) {
    Row row = Runner::describe(p, env.ctx->shape, env.group->processes());
    try {
      runner.measure(p, row);
    } catch (const SkipPoint& e) {
      // Only NCCL may be unable to run here (virtual ranks share one device).
      EXPECT_EQ(impl_info(p.impl).family, "nccl") << p.name() << ": skipped: " << e.what();
      ++skipped;
      continue;
    } catch (const std::exception& e) {
      ADD_FAILURE() << p.name() << ": " << e.what();
      continue;
    }
    EXPECT_EQ(row["verified"], "yes") << p.name();
    EXPECT_EQ(row["wrong_rows"], "0") << p.name();
    EXPECT_EQ(row["wrong_values"], "0") << p.name();
    EXPECT_FALSE(row["dispatch_us_median"].empty()) << p.name();
    ++verified;
  }
  EXPECT_GT(verified, 0);
  std::printf("%d points verified, %d skipped (NCCL) on %d ranks\n", verified, skipped, env.group->size());
}

INSTANTIATE_TEST_SUITE_P(Modes, EpRanks, ::testing::ValuesIn(test_modes()), mode_param_name);

// A rank alone: its peers never launch, so every wait of the low-latency dispatch and of the
// count exchange must end in a recorded timeout (DeviceFailure), not a hang.
TEST(EpVirtual, AKernelWhosePeersNeverLaunchTimesOut) {
  if (const std::string why = no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
  if (launched_under_mpi()) GTEST_SKIP() << "one process with virtual ranks";
  const std::vector<Point> points = {Point{"ll", Op::dispatch_combine, RoutingKind::uniform, 64, 2},
                                     Point{"ht", Op::dispatch_combine, RoutingKind::uniform, 64, 2}};
  Env env(PeerMode::virt, test_options(expected_timeout_ms(100)), points);
  Context& c = *env.ctx;
  c.use_point(RoutingKind::uniform, 64);
  const int lonely = c.local_gpus().front();
  LlDispatch ll(c, 2);
  HtDispatch ht(c, 2, false);
  for (int step = 0; step < 2; ++step) {
    c.group.set_device(lonely);
    if (step == 0) ll.run(lonely, c.stream(lonely));
    else ht.count(lonely, c.stream(lonely));
    PK_CUDA_CHECK(cudaStreamSynchronize(c.stream(lonely)));
    try {
      c.status.check({lonely});
      ADD_FAILURE() << (step == 0 ? "ll dispatch" : "ht count exchange") << " returned without its peers";
    } catch (const DeviceFailure& e) {
      EXPECT_NE(std::string(e.what()).find("imeout"), std::string::npos) << e.what();
    }
  }
}

namespace {

// One warp: lanes 0..K-1 hold a route; the header for rank r built (route.cuh) and read back.
__global__ void header_round_trip(const int* experts, const float* weights, int K, int El, int r, int t, int* out_j,
                                  float* out_w, int* out_tn) {
  const LaneRoute lr = load_route(experts, weights, 0, K);
  const unsigned members = lanes_on(lr, El, r);
  const uint4 v = header_vector(header_word(lr, members, t, El));
  const Received h = read_header(word_of_vectors(lane_id() < 4 ? v : make_uint4(0, 0, 0, 0)));
  if (lane_id() < h.n) {
    out_j[lane_id()] = h.j;
    out_w[lane_id()] = h.w;
  }
  if (lane_id() == 0) {
    out_tn[0] = h.t;
    out_tn[1] = h.n;
  }
}

}  // namespace

TEST(EpDevice, TheTokenHeaderReadsBackAsBuilt) {
  if (const std::string why = no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
  const int K = 8, El = 6, r = 2;
  const std::vector<int> experts = {13, 1, 12, 17, 40, 15, 2, 16};  // on rank 2: 13, 12, 17, 15, 16 (El = 6)
  const std::vector<float> weights = {0.1f, 0.2f, 0.3f, 0.05f, 0.15f, 0.07f, 0.08f, 0.05f};
  int *d_e, *d_j, *d_tn;
  float *d_w, *d_ow;
  PK_CUDA_CHECK(cudaMalloc(&d_e, 64));
  PK_CUDA_CHECK(cudaMalloc(&d_j, 64));
  PK_CUDA_CHECK(cudaMalloc(&d_tn, 8));
  PK_CUDA_CHECK(cudaMalloc(&d_w, 64));
  PK_CUDA_CHECK(cudaMalloc(&d_ow, 64));
  PK_CUDA_CHECK(cudaMemcpy(d_e, experts.data(), K * 4, cudaMemcpyHostToDevice));
  PK_CUDA_CHECK(cudaMemcpy(d_w, weights.data(), K * 4, cudaMemcpyHostToDevice));
  header_round_trip<<<1, 32>>>(d_e, d_w, K, El, r, 4242, d_j, d_ow, d_tn);
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  int tn[2], j[8];
  float w[8];
  PK_CUDA_CHECK(cudaMemcpy(tn, d_tn, 8, cudaMemcpyDeviceToHost));
  PK_CUDA_CHECK(cudaMemcpy(j, d_j, 32, cudaMemcpyDeviceToHost));
  PK_CUDA_CHECK(cudaMemcpy(w, d_ow, 32, cudaMemcpyDeviceToHost));
  EXPECT_EQ(tn[0], 4242);
  ASSERT_EQ(tn[1], 5);
  const int want_j[5] = {13 % El, 12 % El, 17 % El, 15 % El, 16 % El};
  const float want_w[5] = {0.1f, 0.3f, 0.05f, 0.07f, 0.05f};
  for (int q = 0; q < 5; ++q) {
    EXPECT_EQ(j[q], want_j[q]) << q;
    EXPECT_EQ(w[q], want_w[q]) << q;
  }
  for (void* p : {static_cast<void*>(d_e), static_cast<void*>(d_j), static_cast<void*>(d_tn), static_cast<void*>(d_w),
                  static_cast<void*>(d_ow)})
    cudaFree(p);
}
