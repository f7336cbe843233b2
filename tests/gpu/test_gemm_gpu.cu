// The suite's GEMM computes C = A * B^T right: against cuBLASLt on every element and
// against fp64 host dot products on sampled ones, on odd multiples of the tile, with fewer
// blocks than tiles, more blocks than tiles, idle communicator blocks, one K block, and a
// grouped order whose last band is short. Every block runs on its own SM (%smid). The final
// check on fresh inputs catches an operation that writes only on its first launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "microbench/gemm/cublaslt_gemm.h"
#include "microbench/gemm/gemm_data.h"
#include "microbench/gemm/pk_gemm.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/comm.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/topology.h"

using namespace pk;
using namespace pk::gemm;

namespace {

struct Case {
  std::string variant;
  Shape shape;
  int sms;              // compute blocks; <= 0: all SMs (rounded down to the cluster size)
  int comm_blocks = 0;  // idle communicator blocks beside them
  int group_m = 0;
};

std::string describe(const Case& c) {
  return c.variant + " " + c.shape.str() + " sms=" + std::to_string(c.sms) + " comm=" + std::to_string(c.comm_blocks) +
         " group_m=" + std::to_string(c.group_m);
}

// Odd multiples of the tile in every dimension.
const Shape kSmallShape{3 * 128, 5 * 256, 7 * 64};

// A, B, the output and a reference output of one problem, freed when the test ends.
struct GemmBuffers {
  const Shape s;
  const uint64_t ec;  // elements of the output
  void *a = nullptr, *b = nullptr, *out = nullptr, *ref = nullptr;
  explicit GemmBuffers(const Shape& shape) : s(shape), ec(uint64_t(shape.m) * shape.n) {
    PK_CUDA_CHECK(cudaMalloc(&a, uint64_t(s.m) * s.k * 2));
    PK_CUDA_CHECK(cudaMalloc(&b, uint64_t(s.n) * s.k * 2));
    PK_CUDA_CHECK(cudaMalloc(&out, ec * 2));
    PK_CUDA_CHECK(cudaMalloc(&ref, ec * 2));
  }
  ~GemmBuffers() {
    for (void* p : {a, b, out, ref}) cudaFree(p);
  }
  GemmBuffers(const GemmBuffers&) = delete;
  GemmBuffers& operator=(const GemmBuffers&) = delete;
};

class GemmGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    PK_REQUIRE_GPU();
    comm_ = make_self_comm();
    group_ = std::make_unique<PeerGroup>(*comm_, PeerMode::single);
    status_ = std::make_unique<StatusBoard>(*group_);
    const GpuInfo& g = group_->topology().gpus[0];
    if (g.cc_major != 9) GTEST_SKIP() << "the GEMM kernels need a Hopper GPU (sm_90a); GPU0 is " << g.name;
    group_->set_device(0);
  }

  void run(Case c) {
    SCOPED_TRACE(describe(c));
    const GpuInfo& g = group_->topology().gpus[0];
    const int cm = variant_info(c.variant).cluster_m;
    if (c.sms <= 0) c.sms = (g.sm_count - c.comm_blocks) / cm * cm;
    const Shape& s = c.shape;
    const uint64_t ea = uint64_t(s.m) * s.k, eb = uint64_t(s.n) * s.k, ec = uint64_t(s.m) * s.n;
    const GemmBuffers bufs(s);
    void *a = bufs.a, *b = bufs.b, *out = bufs.out, *ref = bufs.ref;
    int* smids;
    const int blocks = c.sms + c.comm_blocks;
    PK_CUDA_CHECK(cudaMalloc(&smids, sizeof(int) * blocks));
    fill_bf16_uniform(a, ea, 11 + s.m);
    fill_bf16_uniform(b, eb, 12 + s.n);
    PK_CUDA_CHECK(cudaMemset(out, kPoisonByte, ec * 2));
    PK_CUDA_CHECK(cudaMemset(ref, kPoisonByte, ec * 2));
    PK_CUDA_CHECK(cudaMemset(smids, 0xFF, sizeof(int) * blocks));

    CublasLtGemm lt(s.m, s.n, s.k, 0);
    lt.run(a, b, ref, nullptr);
    PkGemm gemm(c.variant, g, c.sms, c.comm_blocks);
    const int h = gemm.add(a, b, out, s, c.group_m, smids, status_->deadline(0, 2000));
    gemm.launch(h, nullptr);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_NO_THROW(status_->check({0}));

    const Comparison vs_lt = compare_bf16(out, ref, ec);
    EXPECT_TRUE(vs_lt.ok()) << "against cuBLASLt: " << vs_lt.describe();
    EXPECT_LT(vs_lt.rel_fro_err, 5e-3) << vs_lt.describe();
    const Comparison vs_host = spot_check_host(a, b, out, s.m, s.n, s.k, vs_lt.ref_rms, 48, 99);
    EXPECT_TRUE(vs_host.ok()) << "against fp64 on the host: " << vs_host.describe();

    std::vector<int> ids(blocks);
    PK_CUDA_CHECK(cudaMemcpy(ids.data(), smids, sizeof(int) * blocks, cudaMemcpyDeviceToHost));
    const std::set<int> distinct(ids.begin(), ids.end());
    EXPECT_EQ(distinct.size(), size_t(blocks)) << "blocks shared an SM";
    EXPECT_EQ(distinct.count(-1), 0u) << "a block did not record its %smid";
    for (int id : ids) EXPECT_LT(id, g.sm_count);

    cudaFree(smids);
  }

  std::unique_ptr<Comm> comm_;
  std::unique_ptr<PeerGroup> group_;
  std::unique_ptr<StatusBoard> status_;
};

// M = 3 x 128, N = 5 x 256, K = 7 x 64: 15 tiles over 7 blocks (2 or 3 each).
TEST_F(GemmGpu, OddMultiplesOfTheTileOnFewSms) { run({"c1", {3 * 128, 5 * 256, 7 * 64}, 7}); }
TEST_F(GemmGpu, OddMultiplesOfTheTileOnAllSms) { run({"c1", {3 * 128, 5 * 256, 7 * 64}, 0}); }
TEST_F(GemmGpu, ClusterOfTwoOddMultiples) { run({"c2", {3 * 256, 5 * 256, 7 * 64}, 6}); }
TEST_F(GemmGpu, ClusterOfTwoAllSms) { run({"c2", {3 * 256, 5 * 256, 7 * 64}, 0}); }
// One K block; one tile and three blocks without work.
TEST_F(GemmGpu, SingleKBlockMoreBlocksThanTiles) { run({"c1", {128, 256, 64}, 4}); }
TEST_F(GemmGpu, ClusterSingleTileIdleClusters) { run({"c2", {256, 256, 64}, 4}); }
// The GEMM on 5 SMs while 3 more run the (empty) communicator role.
TEST_F(GemmGpu, CommunicatorBlocksBesideCompute) { run({"c1", {5 * 128, 3 * 256, 5 * 64}, 5, 3}); }
TEST_F(GemmGpu, ClusterCommunicatorBlocks) { run({"c2", {4 * 256, 3 * 256, 5 * 64}, 6, 2}); }
// Many tiles per block, a band height that leaves a short last band.
TEST_F(GemmGpu, LargerProblemShortLastBand) { run({"c1", {2560, 2048, 1024}, 0, 0, 3}); }
TEST_F(GemmGpu, ClusterLargerProblemShortLastBand) { run({"c2", {2560, 2048, 1024}, 0, 0, 3}); }

// The study's final check (check_fresh_run: new inputs, poisoned output, one more run)
// passes the real GEMMs and catches one that wrote the right answer on its first launch and
// nothing afterwards, which the check of what the runs left behind passes. The broken
// wrapper is registered here only, never in the study.
TEST_F(GemmGpu, AnOperationWritingOnlyOnItsFirstLaunchIsCaught) {
  const GemmBuffers bufs(kSmallShape);
  const Shape& s = bufs.s;
  const uint64_t ec = bufs.ec;
  void *a = bufs.a, *b = bufs.b, *out = bufs.out, *ref = bufs.ref;
  const GpuInfo& g = group_->topology().gpus[0];
  CublasLtGemm lt_ref(s.m, s.n, s.k, 0);
  auto reference = [&] { lt_ref.run(a, b, ref, nullptr); };
  PkGemm pk(std::string("c1"), g, g.sm_count);
  const int h = pk.add(a, b, out, s, 0, nullptr, status_->deadline(0, 2000));
  CublasLtGemm lt(s.m, s.n, s.k, 0);
  const std::vector<std::pair<std::string, std::function<void()>>> impls = {
      {"pkbench c1", [&] { pk.launch(h, nullptr); }}, {"cuBLASLt", [&] { lt.run(a, b, out, nullptr); }}};
  uint64_t seed = 1;
  for (const auto& impl : impls) {
    SCOPED_TRACE(impl.first);
    const std::function<void()>& real = impl.second;
    const Comparison ok = check_fresh_run(s.m, s.n, s.k, a, b, out, ref, seed++, reference, real);
    EXPECT_TRUE(ok.ok()) << "the real operation failed the final check: " << ok.describe();

    bool launched = false;
    auto broken = [&] {
      if (!launched) real();
      launched = true;
    };
    for (int i = 0; i < 3; ++i) broken();  // warm-up and timed runs: only the first wrote
    PK_CUDA_CHECK(cudaDeviceSynchronize());
    const Comparison stale = compare_bf16(out, ref, ec);
    EXPECT_TRUE(stale.ok()) << "the broken operation's first launch was wrong: " << stale.describe();
    const Comparison fresh = check_fresh_run(s.m, s.n, s.k, a, b, out, ref, seed++, reference, broken);
    EXPECT_FALSE(fresh.ok()) << "the broken operation passed the final check";
  }
  EXPECT_NO_THROW(status_->check({0}));
}

// cuBLASLt's autotuning runs once per problem and GPU in a process: a second CublasLtGemm of
// the same problem takes the first one's choice (same description), and it computes the
// right result; another SM target tunes for itself (at the tests' effort, test_autotune_effort).
TEST_F(GemmGpu, AutotuningIsReusedForTheSameProblemAndGpu) {
  const GpuInfo& g = group_->topology().gpus[0];
  const AutotuneEffort effort = test_autotune_effort();
  const GemmBuffers bufs(kSmallShape);
  const Shape& s = bufs.s;
  const uint64_t ec = bufs.ec;
  void *a = bufs.a, *b = bufs.b, *out = bufs.out, *ref = bufs.ref;
  fill_bf16_uniform(a, uint64_t(s.m) * s.k, 21);
  fill_bf16_uniform(b, uint64_t(s.n) * s.k, 22);
  PK_CUDA_CHECK(cudaMemset(ref, kPoisonByte, ec * 2));
  CublasLtGemm(s.m, s.n, s.k, 0).run(a, b, ref, nullptr);  // the heuristic's first: no tuning

  CublasLtGemm first(s.m, s.n, s.k, 0);
  first.autotune(a, b, out, nullptr, g.pci_bus_id, g.sm_count, effort);
  const bool tuned_before = first.reused_tuning();  // another test of this process may have tuned it
  CublasLtGemm second(s.m, s.n, s.k, 0);
  PK_CUDA_CHECK(cudaMemset(out, kPoisonByte, ec * 2));
  second.autotune(a, b, out, nullptr, g.pci_bus_id, g.sm_count, effort);
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(second.reused_tuning());
  EXPECT_EQ(second.algo_description(), first.algo_description());
  const Comparison once = compare_bf16(out, ref, ec);  // the reused choice's own launch wrote it
  EXPECT_TRUE(once.ok()) << "the reused choice's launch: " << once.describe();
  PK_CUDA_CHECK(cudaMemset(out, kPoisonByte, ec * 2));
  second.run(a, b, out, nullptr);
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  const Comparison r = compare_bf16(out, ref, ec);
  EXPECT_TRUE(r.ok()) << "the reused choice: " << r.describe();

  const int target = std::max(1, g.sm_count / 2);
  CublasLtGemm other(s.m, s.n, s.k, target);
  const size_t before = autotune_cache().size();
  other.autotune(a, b, out, nullptr, g.pci_bus_id, g.sm_count, effort);
  if (!tuned_before) {
    EXPECT_FALSE(other.reused_tuning()) << "an SM target of " << target << " reused the untargeted choice";
    EXPECT_EQ(autotune_cache().size(), before + 1);
  }
  PK_CUDA_CHECK(cudaDeviceSynchronize());
}

// The queued comparison (reused room, rms read on the device) gives what compare_bf16 gives:
// a pass, a wrong element, a NaN, the same object reused across them.
TEST_F(GemmGpu, PendingComparisonMatchesTheSynchronousOne) {
  const uint64_t n = 3 * 4096 + 17;
  void *ref, *out;
  PK_CUDA_CHECK(cudaMalloc(&ref, n * 2));
  PK_CUDA_CHECK(cudaMalloc(&out, n * 2));
  fill_bf16_uniform(ref, n, 31);
  cudaStream_t s;
  PK_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  PendingComparison pending;
  auto both = [&](const char* what, bool expect_ok) {
    SCOPED_TRACE(what);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
    const Comparison sync = compare_bf16(out, ref, n, kElemTol);
    pending.start(out, ref, n, kElemTol, s);
    PK_CUDA_CHECK(cudaStreamSynchronize(s));
    const Comparison q = pending.result();
    EXPECT_EQ(q.ok(), expect_ok) << q.describe();
    EXPECT_EQ(q.wrong, sync.wrong);
    EXPECT_EQ(q.elems, n);
    // Sums of atomics: equal up to the order of the additions.
    EXPECT_NEAR(q.ref_rms, sync.ref_rms, 1e-9 * sync.ref_rms);
    if (std::isfinite(sync.rel_fro_err)) EXPECT_NEAR(q.rel_fro_err, sync.rel_fro_err, 1e-9 * sync.rel_fro_err + 1e-300);
    else EXPECT_FALSE(std::isfinite(q.rel_fro_err));
  };
  PK_CUDA_CHECK(cudaMemcpy(out, ref, n * 2, cudaMemcpyDeviceToDevice));
  both("equal", true);
  const uint16_t big = 0x4480;  // bf16 1024: far off any element in [-1, 1)
  PK_CUDA_CHECK(cudaMemcpy(static_cast<uint16_t*>(out) + 5, &big, 2, cudaMemcpyHostToDevice));
  both("one element off", false);
  PK_CUDA_CHECK(cudaMemset(static_cast<uint16_t*>(out) + n - 1, kPoisonByte, 2));
  both("a NaN too", false);
  PK_CUDA_CHECK(cudaMemcpy(out, ref, n * 2, cudaMemcpyDeviceToDevice));
  both("equal again", true);
  PK_CUDA_CHECK(cudaStreamDestroy(s));
  cudaFree(ref);
  cudaFree(out);
}

}  // namespace
