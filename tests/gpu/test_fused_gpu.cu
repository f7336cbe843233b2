// The fused study's GPU tests, alone (peer mode single, one process driving 2 GPUs) and
// under `mpirun -np 2` (peer modes ipc and vmm): every operator under every schedule of
// schedule_list.h -- the fused kernels, the baselines, the components -- computes the right
// result on 2 GPUs (and a name not in the list is refused),
// three launches back to back (the device-side epochs count on; the inter-SM reductions
// alternate their partial buffers), on odd multiples of the tile and on a grid with more
// tiles than SMs (blocks with several tiles: the deferred per-tile flags); a kernel whose
// peer never starts ends in a timeout error instead of a hang; and the study's final check
// catches an operation that writes only on its first launch (one GPU: the GEMM components);
// the `tuned` schedule runs what a tuning table answers and skips what it refuses; and the
// two-GPU sum of the inter-SM reduction (one bf16 add) gives the fp32 path's bits for every pair.
#include <gtest/gtest.h>

#include <chrono>
#include <tuple>

#include "tests/gpu/gpu_test_util.h"
#include "kernels/fused/gemm_reduce_inter.cuh"
#include "microbench/fused/fused_context.h"
#include "microbench/fused/fused_tuned.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"

using namespace pk;
using namespace pk::fused;

namespace {

std::string hopper_pair(const PeerGroup& g) {
  if (g.size() < 2) return "needs 2 GPUs (this run has " + std::to_string(g.size()) + ")";
  for (const GpuInfo& i : g.topology().gpus)
    if (i.cc_major != 9) return "the fused kernels need Hopper GPUs (sm_90a); GPU" + std::to_string(i.ordinal) + " is " + i.name;
  for (int a = 0; a < 2; ++a)
    if (!g.can_access(a, 1 - a)) return "GPU" + std::to_string(a) + " cannot reach its peer's memory";
  return "";
}

// The tests' options: no study warm-up, every spin-wait bounded at `timeout_ms`, the tests'
// autotuning effort (test_autotune_effort).
FusedOptions test_options(double timeout_ms) {
  FusedOptions opt;
  opt.study_warmup_ms = 0;
  opt.timing.timeout_ms = timeout_ms;
  opt.cublas_autotune = test_autotune_effort();
  return opt;
}

}  // namespace

// Every pair (a, b) of bf16 bit patterns, in both halves of a packed word with the operands
// swapped: ReduceInterOps::add_bf16x8 against the three-or-more-GPU path (unpack, fp32 add,
// pack) the inter-SM reduction used before for two GPUs; NaNs compare equal to NaNs.
__global__ void count_pair_sum_mismatches(unsigned long long* mismatches) {
  const uint32_t a = blockIdx.x;
  unsigned long long n = 0;
  for (uint32_t b = threadIdx.x; b < 65536u; b += blockDim.x) {
    const uint4 x = make_uint4(a | (b << 16), 0, 0, 0), y = make_uint4(b | (a << 16), 0, 0, 0);
    const uint32_t got = ReduceInterOps::add_bf16x8(x, y).x;
    float acc[8];
    Bf16::unpack(x, acc);
    add_vec<__nv_bfloat16>(acc, y);
    const uint32_t want = Bf16::pack(acc).x;
    for (int h = 0; h < 32; h += 16) {
      const uint32_t g = (got >> h) & 0xffffu, r = (want >> h) & 0xffffu;
      const bool nan_g = (g & 0x7f80u) == 0x7f80u && (g & 0x7fu), nan_r = (r & 0x7f80u) == 0x7f80u && (r & 0x7fu);
      n += nan_g || nan_r ? nan_g != nan_r : g != r;
    }
  }
  atomicAdd(mismatches, n);
}

TEST(FusedGpuArithmetic, TwoGpuBf16AddGivesTheFp32SumRoundedOnce) {
  PK_REQUIRE_GPU();
  unsigned long long* d = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&d, sizeof(*d)));
  PK_CUDA_CHECK(cudaMemset(d, 0, sizeof(*d)));
  count_pair_sum_mismatches<<<65536, 256>>>(d);
  PK_CUDA_CHECK(cudaGetLastError());
  unsigned long long mismatches = ~0ull;
  PK_CUDA_CHECK(cudaMemcpy(&mismatches, d, sizeof(*d), cudaMemcpyDeviceToHost));
  PK_CUDA_CHECK(cudaFree(d));
  EXPECT_EQ(mismatches, 0ull) << "of 2^33 bf16 additions";
}

class FusedGpu : public ::testing::TestWithParam<PeerMode> {};

// One operator per test case: a sanitizer runs each case in a process of its own, and
// racecheck's host memory grows with every kernel a process launches.
class FusedOpGpu : public ::testing::TestWithParam<std::tuple<PeerMode, Op>> {};

TEST_P(FusedOpGpu, EveryScheduleIsRightOnTwoGpus) {
  PK_REQUIRE_GPU();
  const auto [mode, op] = GetParam();
  PeerGroup group(test_comm(), mode);
  if (const std::string why = hopper_pair(group); !why.empty()) GTEST_SKIP() << why;
  const int w = group.size();
  GridSpec grid;
  grid.ops = {op};
  grid.schedules = schedule_names();
  // Odd multiples of the tile (3 x 3 tiles per shard, K = 5 steps); then 512 tiles: more
  // tiles than blocks.
  // 4096 rows, rounded down to whole 128-row tiles per shard (3 ranks: 3840). Under a
  // sanitizer, 12 x 12 tiles per shard (2 ranks: 144 against 256): still more than 132 SMs.
  const Shape many_tiles = slowed_by_a_tool() ? Shape{w * 12 * 128, 12 * 256, 256}
                                              : Shape{4096 / (w * 128) * (w * 128), 4096, 256};
  grid.shapes = {Shape{w * 3 * 128, 3 * 256, 5 * 64}};
  grid.knob_values["comm_sms"] = {3, 16};
  grid.knob_values["chunks"] = {3};
  std::vector<Point> points = build_points(grid, w);
  // Under a tool the many-tile shape runs only this suite's fused kernels (the components and
  // baselines are the same kernels in sequence, or libraries', checked on the small shape):
  // every schedule there was still running after 350 s under synccheck.
  if (slowed_by_a_tool()) {
    grid.schedules.clear();
    for (const Schedule& s : schedules())
      if (s.kind == Kind::fused) grid.schedules.push_back(s.name);
  }
  grid.shapes = {many_tiles};
  for (Point& p : build_points(grid, w)) points.push_back(std::move(p));
  Context ctx(group, test_options(2000), points);
  int verified = 0, skipped = 0;
  for (const Point& p : points) {
    SCOPED_TRACE(p.name());
    std::string err;
    try {
      ctx.ensure_shape(p.op, p.shape);
      std::unique_ptr<Impl> impl = make_impl(p, ctx);
      ctx.prepare_point(p);
      run_untimed(ctx, *impl, 3);
      const gemm::Comparison c = verify_point(ctx, p);
      if (!c.ok()) err = "wrong result: " + c.describe();
      else ++verified;
    } catch (const SkipPoint& e) {
      ++skipped;  // e.g. a build without NCCL, or chunks that do not divide a shard
      std::printf("skipped %s: %s\n", p.name().c_str(), e.what());
    } catch (const std::exception& e) {
      err = e.what();
    }
    EXPECT_EQ(agreed(err), "");
  }
  EXPECT_GE(verified, 2 * 2) << "the operator's two fused kernels on both shapes at least";
  std::printf("%d points verified, %d skipped\n", verified, skipped);
  // A name not in schedule_list.h runs nothing: the refusal names the flag.
  Point unknown = points.front();
  unknown.schedule = "warp9";
  std::string refused;
  try {
    make_impl(unknown, ctx);
  } catch (const ArgError& e) {
    refused = e.what();
  }
  EXPECT_NE(refused.find("--schedules: unknown schedule 'warp9'"), std::string::npos) << refused;
}

// `tuned`: a table in memory (as a user's program loads one, through pkbench/tuning.h)
// answers inter_sm at 3 communication SMs for a GEMM+RS shape and intra_sm for a GEMM+AR
// shape; each tuned point runs that configuration, verified on fresh inputs, under its own
// name. Refused, a skipped point with the table's reason: a shape outside the table, and an
// answer this build has no fused schedule for.
TEST_P(FusedGpu, TunedRunsWhatTheTableAnswers) {
  PK_REQUIRE_GPU();
  PeerGroup group(test_comm(), GetParam());
  if (const std::string why = hopper_pair(group); !why.empty()) GTEST_SKIP() << why;
  const int w = group.size();
  const Shape s{w * 3 * 128, 3 * 256, 5 * 64}, outside{w * 6 * 128, 6 * 256, 10 * 64};
  const std::string machine = pkbench::tuning::virtual_machine_key("testx1", w);
  auto row = [&](const char* op, const char* impl, int comm_sms, int line) {
    return "{\"machine\": \"" + machine + "\", \"op\": \"" + op + "\", \"gpus\": " + std::to_string(w) +
           ", \"m\": " + std::to_string(s.m) + ", \"n\": " + std::to_string(s.n) + ", \"k\": " + std::to_string(s.k) +
           ", \"overlap\": \"" + (std::string(impl) == "ce_overlap" ? "baseline" : impl) + "\", \"impl\": \"" + impl +
           "\", \"comm_sms\": " + std::to_string(comm_sms) + ", \"time_us\": 10.0, \"source\": \"t.csv:" +
           std::to_string(line) + "\"}";
  };
  pkbench::tuning::Tuner tuner(machine);
  tuner.load_json("{\"schema_version\": 1, \"table\": \"fused\", \"peer_modes\": [\"virtual\"], \"rows\": [" +
                      row("gemm_rs", "inter_sm", 3, 2) + ", " + row("gemm_ar", "intra_sm", 0, 3) + ", " +
                      row("ag_gemm", "ce_overlap", 0, 4) + "]}",
                  "mem.json");
  const std::vector<Point> points = {tuned_point(tuner, "mem.json", Op::gemm_rs, s, 0, w),
                                     tuned_point(tuner, "mem.json", Op::gemm_ar, s, 0, w),
                                     tuned_point(tuner, "mem.json", Op::gemm_rs, outside, 0, w),
                                     tuned_point(tuner, "mem.json", Op::ag_gemm, s, 0, w)};
  const std::vector<std::string> runs = {"fused/gemm_rs/inter_sm/" + s.str() + "/comm_sms:3", "fused/gemm_ar/intra_sm/" + s.str(),
                                         "", ""};
  const std::vector<std::string> skips = {"", "", "outside the measured shapes", "answers ce_overlap: no fused schedule"};
  Context ctx(group, test_options(2000), points);
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    SCOPED_TRACE(p.name());
    EXPECT_EQ(p.schedule, "tuned");
    std::string err, skipped;
    try {
      const Point run = point_run(p);
      ctx.ensure_shape(run.op, run.shape);
      std::unique_ptr<Impl> impl = make_impl(p, ctx);
      if (run.name() != runs[i]) err = "runs " + run.name() + ", the table answered " + runs[i];
      ctx.prepare_point(run);
      run_untimed(ctx, *impl, 3);
      const gemm::Comparison c = verify_fresh_run(ctx, *impl, run);
      if (err.empty() && !c.ok()) err = "wrong result: " + c.describe();
      if (err.empty() && run.knob("comm_sms") != impl->comm_blocks) err = "comm blocks " + std::to_string(impl->comm_blocks);
    } catch (const SkipPoint& e) {
      skipped = e.what();
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (skips[i].empty()) EXPECT_EQ(skipped, "");
    else EXPECT_NE(skipped.find(skips[i]), std::string::npos) << skipped;
    EXPECT_EQ(agreed(err), "");
  }
  EXPECT_NE(points[0].tuning->answer.find("overlap=inter_sm impl=inter_sm comm_sms=3 basis=measured from=t.csv:2 table=mem.json"),
            std::string::npos)
      << points[0].tuning->answer;
}

INSTANTIATE_TEST_SUITE_P(PeerModes, FusedGpu, ::testing::ValuesIn(test_modes()), mode_param_name);
INSTANTIATE_TEST_SUITE_P(PeerModes, FusedOpGpu, ::testing::Combine(::testing::ValuesIn(test_modes()), ::testing::ValuesIn(all_ops())),
                         [](const ::testing::TestParamInfo<std::tuple<PeerMode, Op>>& i) {
                           return peer_mode_name(std::get<0>(i.param)) + "_" + op_name(std::get<1>(i.param));
                         });

// GPU 0 runs GEMM+RS intra-SM alone: it waits for GPU 1's "output zeroed" signal, which never
// comes, and must end with a timeout well within a second. Likewise the inter-SM kernel's
// communicator, waiting for GPU 1's unit flags.
TEST(FusedGpuPeers, MissingPeerEndsInATimeout) {
  PK_REQUIRE_GPU();
  PeerGroup group(test_comm(), peer_test_mode());
  if (const std::string why = hopper_pair(group); !why.empty()) GTEST_SKIP() << why;
  for (const char* sched : {"intra_sm", "inter_sm"}) {
    SCOPED_TRACE(sched);
    Point p{Op::gemm_rs, sched, Shape{768, 768, 320}, 0, {}, {}};
    if (std::string(sched) == "inter_sm") p.knobs["comm_sms"] = 4;
    Context ctx(group, test_options(200), {p});
    ctx.ensure_shape(p.op, p.shape);
    const bool inter = p.schedule == "inter_sm";
    const SyncRegion sync = ctx.new_sync(inter ? 6 * 3 * kHalves * kMaxGpus : 0);
    std::string err = "GPU0 is not driven here";
    double ms = 0;
    if (group.drives(0)) {
      try {
        group.set_device(0);
        const auto [compute, comm] = sm_split(ctx, p);
        const KernelKind kind = inter ? KernelKind::reduce_inter : KernelKind::reduce_intra;
        prepare_kernel(kind, compute + comm, ctx.gpu(0));
        const FusedParams fp = fused_params(ctx, 0, kind, p, sync, compute);
        const auto t0 = std::chrono::steady_clock::now();
        launch_kernel(kind, fp, compute + comm, nullptr);
        PK_CUDA_CHECK(cudaDeviceSynchronize());
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ctx.status.check({0});
        err = "no timeout reported";
      } catch (const DeviceFailure& e) {
        err = e.what();
      } catch (const std::exception& e) {
        err = std::string("unexpected: ") + e.what();
      }
    }
    group.barrier();
    if (group.drives(0)) {
      EXPECT_NE(err.find("timeout"), std::string::npos) << err;
      EXPECT_LT(ms, timeout_hang_catcher_ms());
    }
  }
}

namespace {
// Deliberately broken: the wrapped operation runs on the first launch only, so every later
// launch leaves the output as it was. Registered here only, never in the study.
class FirstLaunchOnly : public Impl {
 public:
  explicit FirstLaunchOnly(std::unique_ptr<Impl> real) : Impl(real->ctx), real_(std::move(real)) {}
  void enqueue() override {
    if (launched_) return;
    real_->enqueue();
    launched_ = true;
  }
  int enqueues_per_op() const override { return real_->enqueues_per_op(); }

 private:
  std::unique_ptr<Impl> real_;
  bool launched_ = false;
};
}  // namespace

// The study's final check (verify_fresh_run: new inputs, re-poisoned outputs, one more run)
// passes every real operation and catches one that wrote the right answer on its first
// launch and nothing afterwards, which the check of what the runs left behind passes. On one
// GPU the components run (the GEMMs); on two, also the fused kernels and the NCCL baselines.
TEST(FusedGpuCheck, AnOperationWritingOnlyOnItsFirstLaunchIsCaught) {
  PK_REQUIRE_GPU();
  PeerGroup group(test_comm(), peer_test_mode());
  for (const GpuInfo& i : group.topology().gpus)
    if (i.cc_major != 9) GTEST_SKIP() << "the fused kernels need Hopper GPUs (sm_90a); GPU" << i.ordinal << " is " << i.name;
  const int w = group.size();
  const bool pair = hopper_pair(group).empty();
  GridSpec grid;
  grid.ops = all_ops();
  grid.schedules = {"gemm_pk", "gemm_cublas"};
  if (pair)
    for (const char* s : {"intra_sm", "inter_sm", "cublas_nccl", "cublas_nccl_overlap"}) grid.schedules.push_back(s);
  grid.shapes = {Shape{w * 3 * 128, 3 * 256, 5 * 64}};
  grid.knob_values["comm_sms"] = {8};
  grid.knob_values["chunks"] = {3};
  const std::vector<Point> points = build_points(grid, w);
  Context ctx(group, test_options(2000), points);
  int caught = 0;
  for (const Point& p : points) {
    SCOPED_TRACE(p.name());
    std::string err;
    try {
      ctx.ensure_shape(p.op, p.shape);
      {  // the real operation passes the final check on new inputs
        std::unique_ptr<Impl> real = make_impl(p, ctx);
        ctx.prepare_point(p);
        run_untimed(ctx, *real, 2);
        const gemm::Comparison c = verify_fresh_run(ctx, *real, p);
        if (!c.ok()) err = "the real operation failed the final check: " + c.describe();
      }
      ctx.ensure_shape(p.op, p.shape);  // back to the timed inputs
      FirstLaunchOnly broken(make_impl(p, ctx));
      ctx.prepare_point(p);
      run_untimed(ctx, broken, 3);  // warm-up and timed runs: only the first wrote
      const gemm::Comparison stale = verify_point(ctx, p);
      if (err.empty() && !stale.ok()) err = "the broken operation's first launch was wrong: " + stale.describe();
      const gemm::Comparison fresh = verify_fresh_run(ctx, broken, p);
      if (err.empty() && fresh.ok()) err = "the broken operation passed the final check";
      if (err.empty()) ++caught;
    } catch (const SkipPoint& e) {
      std::printf("skipped %s: %s\n", p.name().c_str(), e.what());
    } catch (const std::exception& e) {
      err = e.what();
    }
    EXPECT_EQ(agreed(err), "");
  }
  EXPECT_GE(caught, 2 * 3) << "both GEMM components of every operator at least";
  std::printf("%d broken operations caught\n", caught);
}
