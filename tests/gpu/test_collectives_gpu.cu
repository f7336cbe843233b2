// Collective study, GPU (label gpu; skipped with the reason without the GPUs a test needs):
// every implementation (ours and NCCL's) is checked against the fp64 reference for odd
// element counts, both dtypes, back-to-back and CUDA-graph launches, one process driving 2
// GPUs; a rank that never arrives ends each of our kernels with a timeout, not a hang. On
// one GPU or more: an implementation that writes only on its first launch is caught, and
// nccl-tests' method agrees with the harness's events for NCCL. The one-process-per-GPU runs
// are the CLI tests in tests/collectives.cmake (mpirun -np 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "tests/gpu/gpu_test_util.h"
#include "kernels/spin_wait.cuh"
#include "microbench/collectives/ar_algorithm.h"
#include "microbench/collectives/coll_harness.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/stats.h"
#include "pkbench/tuning.h"

using namespace pk;
using namespace pk::coll;

namespace {

std::string need_two_gpus() {
  std::string why = no_gpu_reason();
  if (!why.empty()) return why;
  int n = 0;
  cudaGetDeviceCount(&n);
  if (n < 2) return "needs 2 GPUs, found " + std::to_string(n);
  return "";
}

// What a multi-rank test of mode m needs: two GPUs for single (one process driving both);
// virtual ranks ($PKBENCH_VIRTUAL_RANKS, default 2) need one.
std::string need_ranks(PeerMode m) {
  return m == PeerMode::virt ? no_gpu_reason() : need_two_gpus();
}

// The symmetric buffers of the test context: input and output, and scratch (every registered
// implementation's scratch at the counts below must fit: CollectivesRegistry checks it).
constexpr uint64_t kEnvBytes = 64ull << 20, kEnvScratchBytes = 4 * kEnvBytes;
// Per-rank counts of the plain collectives that every implementation is verified at.
const std::vector<uint64_t> kOddCounts = {1, 7, 1001, 65537, 1000003};

struct Env {
  std::unique_ptr<Comm> comm = make_self_comm();
  std::unique_ptr<PeerGroup> group;
  StudyConfig cfg;
  std::unique_ptr<Context> ctx;
  explicit Env(double timeout_ms, PeerMode mode = PeerMode::single) {
    group = std::make_unique<PeerGroup>(*comm, mode);
    cfg.timing.samples = 2;
    cfg.timing.warmup_ms = 1;
    cfg.timing.target_sample_ms = 0.2;
    cfg.timing.gap_ms = 0;
    cfg.timing.timeout_ms = timeout_ms;
    cfg.ops_per_sample = 3;
    cfg.nccltests_iters = 2;
    const uint64_t big = kEnvBytes;
    ctx = std::make_unique<Context>(*group, cfg, big, big, kEnvScratchBytes);
    NcclSizes z;
    z.user_in = z.user_out = z.send = z.recv = z.reshape_send = z.reshape_recv = big;
    // Two forced configurations stand for the six (the LL protocol; the Tree algorithm, which
    // the all-gather and reduce-scatter points do not take): the others' points skip.
    // NCCL refuses two ranks on one device: virtual ranks leave it out (its points skip).
    if (group->library_skip_reason("NCCL").empty())
      ctx->nccl = make_nccl_state(*ctx, z, parse_nccl_configs("default,symmetric,LL/Ring,Simple/Tree"));
  }
};

// n ranks: the 4-D all-to-all splits heads over the ranks (two each).
TensorDims odd_dims(int n = 2) {
  TensorDims d;
  d.cols = 1001;  // odd rows: the scalar path
  d.batch = 2;
  d.heads = 2 * n;
  d.head_dim = 33;
  return d;
}

// f(problem, mode) for every collective at per-rank counts `plain` (tensor layouts: `tensor`),
// both dtypes, both launch modes, n ranks.
template <class F>
void for_each_odd_point(int n, const std::vector<uint64_t>& plain, const std::vector<uint64_t>& tensor, F&& f) {
  for (const auto& coll : collective_names()) {
    const bool is_tensor = collective_named(coll).tensor();
    for (DType t : {DType::bf16, DType::f32})
      for (uint64_t c : is_tensor ? tensor : plain)
        for (LaunchMode m : {LaunchMode::eager, LaunchMode::graph}) f(make_problem_count(coll, t, c, n, odd_dims(n)), m);
  }
}

// One point measured and verified; false when it did not run (a skip where `skip_ok`, else a
// failure is added).
bool measured_and_verified(Runner& runner, const PointSpec& ps, Row& row, bool skip_ok) {
  try {
    runner.measure(ps, row);
  } catch (const SkipPoint& e) {
    if (!skip_ok) ADD_FAILURE() << ps.name() << ": skipped: " << e.what();
    return false;
  } catch (const std::exception& e) {
    ADD_FAILURE() << ps.name() << ": " << e.what();
    return false;
  }
  EXPECT_EQ(row["wrong"], "0") << ps.name();
  EXPECT_EQ(row["verified"], "yes") << ps.name();
  EXPECT_FALSE(row["time_us_median"].empty()) << ps.name();
  return true;
}

// The multi-rank tests run on two real GPUs (single) and on virtual ranks of one GPU.
class CollectivesRanks : public ::testing::TestWithParam<PeerMode> {};

}  // namespace

TEST_P(CollectivesRanks, EveryImplementationIsCorrectForOddCountsBothDtypesBothModes) {
  const std::string why = need_ranks(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(2000, GetParam());
  ImplList impls;
  for (auto& v : {our_impls(), baseline_impls()})
    for (auto& i : v) impls.push_back(i);
  PointResults results;
  Runner runner(*env.ctx, results);
  int checked = 0;
  for_each_odd_point(env.group->size(), kOddCounts, {1, 3}, [&](const Problem& p, LaunchMode m) {
    for (auto& impl : impls) {
      if (!impl->supports(p.layout) || !impl->applies(p)) continue;
      Row row;
      checked += measured_and_verified(runner, {p, m, impl}, row, /*skip_ok=*/true);
    }
  });
  EXPECT_GT(checked, 100);
}

namespace {

__global__ void do_nothing_kernel() {}

// Right on its first launch per GPU, a no-op afterwards: what an implementation that worked
// during warm-up and then stopped writing looks like to the harness. Registered only in this
// test binary, never in the study's lists.
class FirstLaunchOnly final : public Impl {
 public:
  explicit FirstLaunchOnly(std::shared_ptr<Impl> real) : real_(std::move(real)) {}
  std::string name() const override { return "first_launch_only"; }
  std::string family() const override { return "pk"; }
  bool supports(int layout) const override { return real_->supports(layout); }
  uint64_t scratch_bytes(const Problem& p) const override { return real_->scratch_bytes(p); }
  void prepare(const Problem& p, Context& ctx) override {
    real_->prepare(p, ctx);
    launches_.clear();
  }
  void* input(int gpu) override { return real_->input(gpu); }
  void* output(int gpu) override { return real_->output(gpu); }
  void group_begin() override { real_->group_begin(); }
  void group_end() override { real_->group_end(); }
  void enqueue(int gpu, cudaStream_t s) override {
    if (launches_[gpu]++ == 0) {
      real_->enqueue(gpu, s);
    } else {
      do_nothing_kernel<<<1, 1, 0, s>>>();
      PK_CUDA_CHECK_LAUNCH();
    }
  }

 private:
  std::shared_ptr<Impl> real_;
  std::map<int, int> launches_;
};

std::shared_ptr<Impl> impl_named(const std::string& name) {
  for (auto& i : our_impls())
    if (i->name() == name) return i;
  return nullptr;
}

}  // namespace

// Runs on any number of GPUs (one_shot is a copy on one): the broken implementation is an
// error row in both launch modes, and the implementation it wraps passes the same points.
TEST_P(CollectivesRanks, ImplementationThatWritesOnlyOnItsFirstLaunchIsCaught) {
  const std::string why = no_gpu_reason();
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(2000, GetParam());
  PointResults results;
  Runner runner(*env.ctx, results);
  auto real = impl_named("one_shot");
  ASSERT_TRUE(real);
  auto broken = std::make_shared<FirstLaunchOnly>(real);
  const Problem p = make_problem_count("all_reduce", DType::bf16, 65537, env.group->size(), {});
  for (LaunchMode m : {LaunchMode::eager, LaunchMode::graph}) {
    Row good;
    EXPECT_NO_THROW(runner.measure({p, m, real}, good)) << launch_mode_name(m);
    EXPECT_EQ(good["verified"], "yes") << launch_mode_name(m);
    Row row;
    try {
      runner.measure({p, m, broken}, row);
      ADD_FAILURE() << launch_mode_name(m) << ": a first-launch-only implementation passed verification";
    } catch (const SkipPoint& e) {
      ADD_FAILURE() << launch_mode_name(m) << ": skipped: " << e.what();
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("wrong output elements"), std::string::npos) << e.what();
    }
    EXPECT_EQ(row["verified"], "no") << launch_mode_name(m);
  }
}

// nccl-tests' method (host clock around back-to-back calls or a graph launch, then a stream
// sync) against the harness's own gated events, for NCCL on every GPU here (one rank on a
// one-GPU machine): at 64 MiB the device time dominates, so the two agree within the
// samples' spread or 5 %, whichever is wider.
TEST(CollectivesGpu, NcclTestsMethodAgreesWithTheHarnessEventsWhereTheDeviceTimeDominates) {
  const std::string why = no_gpu_reason();
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(2000);
  if (!env.ctx->nccl) GTEST_SKIP() << "built without NCCL";
  env.cfg.timing.samples = 7;
  env.cfg.timing.warmup_ms = 20;
  env.cfg.ops_per_sample = 20;
  env.cfg.nccltests_iters = 50;
  PointResults results;
  Runner runner(*env.ctx, results);
  std::shared_ptr<Impl> nccl;
  for (auto& i : baseline_impls())
    if (i->name() == "nccl") nccl = i;
  ASSERT_TRUE(nccl);
  const Problem p = make_problem("all_reduce", DType::bf16, 64ull << 20, env.group->size(), {});
  for (LaunchMode m : {LaunchMode::eager, LaunchMode::graph}) {
    Row row;
    ASSERT_NO_THROW(runner.measure({p, m, nccl}, row)) << launch_mode_name(m);
    const double med = std::stod(row["time_us_median"]), nt = std::stod(row["time_us_nccltests"]);
    const double spread = std::stod(row["time_us_p90"]) - std::stod(row["time_us_p10"]);
    EXPECT_EQ(nccl->nccl_config(), "default");
    EXPECT_NEAR(nt, med, std::max(0.05 * med, spread))
        << launch_mode_name(m) << ": nccl-tests method " << nt << " us, events " << med << " us";
  }
}

TEST_P(CollectivesRanks, GraphReplaysStayCorrectAcrossManyLaunches) {
  const std::string why = need_ranks(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(2000, GetParam());
  env.cfg.ops_per_sample = 100;
  env.cfg.timing.samples = 5;  // hundreds of replays: the epochs keep counting
  PointResults results;
  Runner runner(*env.ctx, results);
  for (auto& impl : all_reduce_impls()) {
    const Problem p = make_problem_count("all_reduce", DType::bf16, 4099, env.group->size(), {});
    if (!impl->applies(p)) continue;
    Row row;
    EXPECT_NO_THROW(runner.measure({p, LaunchMode::graph, impl}, row)) << impl->name();
    EXPECT_EQ(row["wrong"], "0") << impl->name();
  }
}

TEST_P(CollectivesRanks, RankThatNeverArrivesEndsWithTimeout) {
  const std::string why = need_ranks(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(expected_timeout_ms(100), GetParam());  // 100 ms bound on every spin-wait
  ImplList ours = our_impls();
  for (auto& impl : ours)
    for (const auto& coll : collective_names()) {
      const Problem p = make_problem_count(coll, DType::bf16, 4096, env.group->size(), odd_dims(env.group->size()));
      if (!impl->supports(p.layout) || !impl->applies(p)) continue;
      impl->prepare(p, *env.ctx);
      // The last rank, not rank 0: a broadcast's root may have nothing to wait for on its first
      // launch (the LL root waits only for acknowledgements of launch e - 2), and it then
      // finishes alone, correctly; every other rank of every collective waits for a peer.
      const int lonely = env.group->size() - 1;
      env.group->set_device(lonely);
      cudaStream_t s = env.ctx->stream(lonely);
      ASSERT_EQ(cudaMemsetAsync(env.ctx->sync.local(lonely), 0, kSyncBytes, s), cudaSuccess);
      impl->enqueue(lonely, s);  // the other ranks never launch their side
      const auto t0 = std::chrono::steady_clock::now();
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess) << impl->name() << " " << coll;
      const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_LT(waited_ms, timeout_hang_catcher_ms()) << impl->name() << " " << coll;
      try {
        env.ctx->status.check({lonely});
        ADD_FAILURE() << impl->name() << " " << coll << ": no timeout reported";
      } catch (const DeviceFailure& e) {
        EXPECT_NE(std::string(e.what()).find("timeout"), std::string::npos) << e.what();
      }
    }
}

// Launch knobs: every implementation of ours at a grid of 3 blocks (odd, below and above the
// auto grid across the counts) and, where its kernel launches other threads, 64 per block
// (two warps: each kernel's loops stride by blockDim), odd counts, both dtypes and modes.
TEST_P(CollectivesRanks, EveryImplementationIsCorrectWithNonDefaultKnobs) {
  const std::string why = need_ranks(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(2000, GetParam());
  PointResults results;
  Runner runner(*env.ctx, results);
  int checked = 0;
  for (auto& base : our_impls()) {
    LaunchKnobs k{3, 64};
    if (!base->knob_refusal(k).empty()) k.threads = 0;  // push_tma: its threads are compiled in
    ASSERT_EQ(base->knob_refusal(k), "") << base->name();
    auto impl = base->with_knobs(k);
    ASSERT_TRUE(impl) << base->name();
    EXPECT_EQ(impl->knobs().text(), k.text());
    for_each_odd_point(env.group->size(), {1, 1001, 65537}, {3}, [&](const Problem& p, LaunchMode m) {
      if (!impl->supports(p.layout) || !impl->applies(p)) return;
      const PointSpec ps{p, m, impl};
      Row row;
      if (!measured_and_verified(runner, ps, row, /*skip_ok=*/false)) return;
      EXPECT_EQ(row["sms"], "3") << ps.name();
      if (k.threads) EXPECT_EQ(row["threads"], "64") << ps.name();
      EXPECT_EQ(row["knobs"], k.text()) << ps.name();
      ++checked;
    });
  }
  EXPECT_GT(checked, 50);
}

// `tuned`: a table (in memory, as a user's program would load one) answers two_shot_push at
// 3 blocks x 64 threads for 64 KiB bf16 all-reduce; the tuned point runs that, verified, and
// says so. Refused, each a skipped point with the reason: an answer whose threads its kernel
// cannot launch (256 KiB), an implementation this build does not register (1 MiB), a size
// outside the table (4 MiB).
TEST_P(CollectivesRanks, TunedRunsWhatTheTableAnswers) {
  const std::string why = need_ranks(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  Env env(2000, GetParam());
  const int n = env.group->size();
  const std::string machine = pkbench::tuning::virtual_machine_key("testx1", n);
  auto row = [&](int bytes, const char* impl, int threads, int line) {
    return "{\"machine\": \"" + machine + "\", \"collective\": \"all_reduce\", \"dtype\": \"bf16\", \"gpus\": " +
           std::to_string(n) + ", \"launch_mode\": \"eager\", \"bytes\": " + std::to_string(bytes) + ", \"impl\": \"" +
           impl + "\", \"family\": \"pk\", \"sms\": 3, \"threads\": " + std::to_string(threads) +
           ", \"time_us\": 10.0, \"source\": \"t.csv:" + std::to_string(line) + "\"}";
  };
  pkbench::tuning::Tuner tuner(machine);
  tuner.load_json("{\"schema_version\": 1, \"table\": \"collectives\", \"peer_modes\": [\"virtual\"], \"rows\": [" +
                      row(65536, "two_shot_push", 64, 2) + ", " + row(262144, "two_shot_push", 1024, 3) + ", " +
                      row(1 << 20, "no_such_impl", 64, 4) + "]}",
                  "mem.json");
  PointResults results;
  Runner runner(*env.ctx, results);
  const Problem p = make_problem("all_reduce", DType::bf16, 65536, n, {});
  auto tuned = tuned_impl(tuner, "mem.json", p, LaunchMode::eager, our_impls());
  EXPECT_EQ(tuned->name(), "tuned");
  EXPECT_EQ(tuned->underlying().name(), "two_shot_push");
  Row r;
  ASSERT_NO_THROW(runner.measure({p, LaunchMode::eager, tuned}, r));
  EXPECT_EQ(r["verified"], "yes");
  EXPECT_EQ(r["sms"], "3");
  EXPECT_EQ(r["threads"], "64");
  EXPECT_NE(r["tuning"].find("impl=two_shot_push sms=3 threads=64 launch_mode=eager basis=measured"), std::string::npos)
      << r["tuning"];
  for (const auto& [bytes, says] : std::vector<std::pair<uint64_t, std::string>>{
           {262144, "threads=1024 outside"}, {1 << 20, "has not registered"}, {4 << 20, "outside the measured range"}}) {
    const Problem q = make_problem("all_reduce", DType::bf16, bytes, n, {});
    Row skipped;
    try {
      runner.measure({q, LaunchMode::eager, tuned_impl(tuner, "mem.json", q, LaunchMode::eager, our_impls())}, skipped);
      ADD_FAILURE() << bytes << " B: ran";
    } catch (const SkipPoint& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

// The all-reduce registry (ar_list.h), no GPU needed (also run as the CPU test
// collectives_registry): every listed algorithm is registered under its name, in the list's
// order, and is runnable: both kernels exist, its default threads are whole warps it can
// launch, it takes the launch knobs, and at the counts the GPU tests verify (up to 8 ranks)
// it needs no more scratch than their context has. A name not listed is not registered
// (the study refuses it: collectives_cli_unknown_impl).
TEST(CollectivesRegistry, EveryListedAllReduceAlgorithmIsRegisteredAndRunnable) {
  const auto& algos = all_reduce_algorithms();
  const ImplList impls = all_reduce_impls();
  // Every algorithm, then the PDL twins (<name>_pdl) of those that declare one, in list order.
  std::vector<std::string> twins;
  for (const ArEntry& a : algos)
    if (a.algo->pdl_twin()) twins.push_back(a.name + "_pdl");
  ASSERT_EQ(impls.size(), algos.size() + twins.size());
  for (size_t i = 0; i < twins.size(); ++i) EXPECT_EQ(impls[algos.size() + i]->name(), twins[i]);
  std::set<std::string> names;
  for (size_t i = 0; i < algos.size(); ++i) {
    const ArEntry& a = algos[i];
    SCOPED_TRACE(a.name);
    EXPECT_TRUE(names.insert(a.name).second) << "listed twice";
    EXPECT_EQ(impls[i]->name(), a.name);
    EXPECT_EQ(impls[i]->family(), "pk");
    for (DType t : {DType::bf16, DType::f32}) EXPECT_NE(a.algo->kernels().of(t), nullptr);
    const int threads = a.algo->threads();
    EXPECT_TRUE(threads >= 32 && threads <= 1024 && threads % 32 == 0) << threads;
    EXPECT_GT(a.algo->bytes_per_block(), 0u);
    for (const auto& c : collective_names()) EXPECT_EQ(impls[i]->supports(layout_of(c)), c == "all_reduce") << c;
    for (const LaunchKnobs k : {LaunchKnobs{}, LaunchKnobs{3, 32}, LaunchKnobs{kMaxBlocks, threads}}) {
      EXPECT_EQ(impls[i]->knob_refusal(k), "") << k.text();
      auto copy = impls[i]->with_knobs(k);
      ASSERT_TRUE(copy);
      EXPECT_EQ(copy->name(), a.name);
    }
    EXPECT_NE(impls[i]->knob_refusal({0, threads + 32}), "");
    for (int n : {2, 3, 4, 8})
      for (DType t : {DType::bf16, DType::f32}) {
        EXPECT_TRUE(impls[i]->applies(make_problem("all_reduce", t, 4096, n, {}))) << n << " ranks, 4 KiB";
        for (uint64_t c : kOddCounts) {
          const Problem p = make_problem_count("all_reduce", t, c, n, {});
          if (impls[i]->applies(p))
            EXPECT_LE(impls[i]->with_knobs({kMaxBlocks, 0})->scratch_bytes(p), kEnvScratchBytes) << p.describe();
        }
      }
  }
}

// The collective registry (coll_list.h), no GPU needed (the CPU test collectives_registry):
// every listed collective is served by at least one implementation of ours and, built with
// NCCL, by every NCCL configuration that takes its function, so the tests above verify it.
TEST(CollectivesRegistry, EveryListedCollectiveIsServedByOursAndByNccl) {
  const ImplList ours = our_impls(), baselines = baseline_impls();
  for (const auto& c : collective_names()) {
    SCOPED_TRACE(c);
    const int layout = layout_of(c);
    int served = 0;
    for (auto& i : ours) served += i->supports(layout);
    EXPECT_GT(served, 0);
    if (!built_with_nccl()) continue;
    int nccl = 0;
    for (auto& i : baselines)
      if (i->family().rfind("nccl", 0) == 0 && i->supports(layout)) ++nccl;
    EXPECT_GT(nccl, 0);
  }
}

// Busy for `ns` of the global timer; with `fail`, reports a timeout on `st` instead (a kernel
// that gave up waiting).
__global__ void busy_or_fail_kernel(uint64_t ns, DeviceStatus* st, int fail) {
  if (fail) {
    if (threadIdx.x == 0) report_status(st, kStatusTimeout, kWaitFlag);
    return;
  }
  const uint64_t t0 = ptx::globaltimer_ns();
  while (ptx::globaltimer_ns() - t0 < ns) {
  }
}

// FlowTimer::samples with the next sample queued while one runs (our collectives' points):
// the spans of samples taken one at a time, the same operations run; and a failure while a
// sample waits behind its closed gate (an enqueue that throws, a kernel that reports a
// timeout) is thrown at once, not after the gate's deadline, and leaves the gate and the
// status words fit for the next timer.
TEST_P(CollectivesRanks, OverlappedSamplesTimeWhatSamplesOneAtATimeTime) {
  const std::string why = need_ranks(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  // Deadlines long enough that a failure noticed only when one expires is told apart from one
  // noticed at once, on a busy machine too.
  constexpr double kDeadlineMs = 20000;
  Env env(kDeadlineMs, GetParam());
  Context& ctx = *env.ctx;
  constexpr int kOps = 8;
  constexpr uint64_t kBusyNs = 20000;
  // The operation number whose enqueue throws / whose kernel fails (-1: none), set once the
  // warm-up's count is known.
  auto throw_at = std::make_shared<int>(-1), fail_at = std::make_shared<int>(-1);
  auto make_timer = [&] {
    std::vector<Flow> flows;
    for (int gpu : env.group->local_gpus()) {
      Flow f;
      f.index = gpu;
      f.gpu = gpu;
      f.stream = ctx.stream(gpu);
      DeviceStatus* st = ctx.status.on(gpu);
      cudaStream_t s = f.stream;
      f.enqueue = [=](int op) {
        if (op == *throw_at) throw std::runtime_error("enqueue refused");
        busy_or_fail_kernel<<<1, 32, 0, s>>>(kBusyNs, st, op == *fail_at);
        PK_CUDA_CHECK_LAUNCH();
      };
      flows.push_back(std::move(f));
    }
    TimingOptions opt = env.cfg.timing;
    opt.fixed_iters_per_sample = kOps;
    auto t = std::make_unique<FlowTimer>(*env.group, flows, env.group->size(), ctx.gate, ctx.status, opt);
    t->calibrate();
    return t;
  };
  auto median = [](const std::vector<Sample>& v) {
    std::vector<double> ms;
    for (const Sample& s : v) ms.push_back(s.step_ms_per_op);
    return summarize(ms).median;
  };
  {
    auto t = make_timer();
    const int warm = t->ops_run();
    const std::vector<Sample> one = t->samples(5, false), overlapped = t->samples(5, true);
    ASSERT_EQ(one.size(), 5u);
    ASSERT_EQ(overlapped.size(), 5u);
    EXPECT_EQ(t->ops_run(), warm + 10 * kOps);
    for (const Sample& s : overlapped) EXPECT_GE(s.step_ms_per_op, kBusyNs * 1e-6);
    // Under a sanitizer the spans time the tool's instrumentation, not the kernels (initcheck
    // measured 0.60 against 2.69 ms): the comparison means something only without one.
    if (!slowed_by_a_tool()) EXPECT_NEAR(median(overlapped), median(one), 0.1 * median(one));
  }
  for (const char* failure : {"enqueue", "kernel"}) {
    auto t = make_timer();
    // The enqueue of sample 2 throws while sample 1 runs; or a kernel of sample 1 fails while
    // sample 2 waits behind its gate.
    if (std::string(failure) == "enqueue") *throw_at = t->ops_run() + 2 * kOps + 1;
    else *fail_at = t->ops_run() + kOps + 3;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(t->samples(5, true), DeviceFailure) << failure;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(ms, 0.5 * kDeadlineMs * deadline_scale()) << failure << ": waited out a deadline";
    *throw_at = *fail_at = -1;
    auto next = make_timer();
    EXPECT_NO_THROW(next->samples(3, true)) << "after the " << failure << " failure";
  }
}

INSTANTIATE_TEST_SUITE_P(PeerModes, CollectivesRanks, ::testing::Values(PeerMode::single, PeerMode::virt),
                         [](const ::testing::TestParamInfo<PeerMode>& i) { return peer_mode_name(i.param); });
