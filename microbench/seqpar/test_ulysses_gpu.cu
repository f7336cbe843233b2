// Sequence parallelism, the Ulysses part, GPU (label gpu; each test skips with the reason
// where it cannot run). The 4-D all-to-all over S and the column all-gather / reduce-scatter
// over N are the collectives study's (kernels/collectives, microbench/collectives: its
// registry, its NCCL baseline with the reshape copies); its own tests check every
// implementation against the harness's fp64 reference. Here each implementation of those three
// collectives, at a Ulysses-like shape (D = 128, H = 8 heads per rank, B = 2, odd S per rank),
// runs through the collectives' Runner (timed, device-checked) and then once more on fresh
// inputs, and every element of every rank's output is compared with a reference computed on
// the host from the inputs read back: on virtual ranks of one GPU ($PKBENCH_VIRTUAL_RANKS: ctest
// runs 2, 3, 4 and 8), on the GPUs of one process (2 or more). NCCL's rows skip where NCCL
// cannot run (virtual ranks: one device per rank).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "microbench/collectives/coll_harness.h"
#include "microbench/collectives/coll_nccl.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/gpu_test_support.h"

using namespace pk;
using namespace pk::coll;

// The communicator of this test process (tests/gpu/gpu_main.cpp).
pk::Comm& test_comm();

namespace {

std::string mode_param_name(const ::testing::TestParamInfo<PeerMode>& i) { return peer_mode_name(i.param); }


constexpr uint64_t kEnvBytes = 16ull << 20;

struct Env {
  std::unique_ptr<Comm> comm = make_self_comm();
  std::unique_ptr<PeerGroup> group;
  StudyConfig cfg;
  std::unique_ptr<Context> ctx;
  explicit Env(PeerMode mode) {
    group = std::make_unique<PeerGroup>(*comm, mode);
    cfg.timing.samples = 2;
    cfg.timing.warmup_ms = 1;
    cfg.timing.target_sample_ms = 0.2;
    cfg.timing.gap_ms = 0;
    cfg.timing.timeout_ms = 2000;
    cfg.ops_per_sample = 2;
    cfg.nccltests_iters = 2;
    ctx = std::make_unique<Context>(*group, cfg, kEnvBytes, kEnvBytes, 4 * kEnvBytes);
    NcclSizes z;
    z.user_in = z.user_out = z.send = z.recv = z.reshape_send = z.reshape_recv = kEnvBytes;
    if (group->library_skip_reason("NCCL").empty()) ctx->nccl = make_nccl_state(*ctx, z, parse_nccl_configs("default"));
  }
};

// Ulysses' layout at test size: D = 128 as in the study, 8 heads per rank, B = 2; the column
// layouts 129 columns per rank.
TensorDims ulysses_dims(int n) {
  TensorDims d;
  d.cols = 129;
  d.batch = 2;
  d.heads = 8 * uint64_t(n);
  d.head_dim = 128;
  return d;
}

float to_float(const std::vector<char>& buf, DType t, uint64_t i) {
  if (t == DType::f32) {
    float v;
    std::memcpy(&v, buf.data() + i * 4, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, buf.data() + i * 2, 2);
  const uint32_t bits = uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

// Rank r's expected output element i (fp64), from every rank's input read back.
double expected(const Problem& p, const std::vector<std::vector<char>>& in, int r, uint64_t i) {
  const uint64_t n = p.n;
  if (p.layout == kAllGatherCols) {  // out (rows, n*cols): out[row][s*cols + c] = in_s[row][c]
    const uint64_t row = i / (n * p.cols), col = i % (n * p.cols);
    return to_float(in[col / p.cols], p.dtype, row * p.cols + col % p.cols);
  }
  if (p.layout == kReduceScatterCols) {  // out (rows, cols) = sum_s in_s[row][r*cols + c]
    const uint64_t row = i / p.cols, c = i % p.cols;
    double s = 0;
    for (uint64_t src = 0; src < n; ++src) s += to_float(in[src], p.dtype, row * n * p.cols + r * p.cols + c);
    return s;
  }
  // all_to_all_4d: in (B, Sl, H, D) -> out (B, n*Sl, H/n, D): out[b][s*Sl + sl][h][d] = in_s[b][sl][r*H/n + h][d]
  const uint64_t hn = p.H / n, d = i % p.D, h = i / p.D % hn, sg = i / (p.D * hn) % (n * p.Sl), b = i / (p.D * hn * n * p.Sl);
  const uint64_t src = sg / p.Sl, sl = sg % p.Sl;
  return to_float(in[src], p.dtype, ((b * p.Sl + sl) * p.H + r * hn + h) * p.D + d);
}

// One eager collective of `impl` on fresh inputs (seed), then every output element of every
// rank against the host reference; returns the wrong elements (and the first in `first`).
uint64_t host_checked(Env& env, Impl& impl, const Problem& p, uint64_t seed, std::string& first) {
  Context& c = *env.ctx;
  PeerGroup& g = *env.group;
  const auto& gpus = g.local_gpus();
  for (int gpu : gpus) {
    g.set_device(gpu);
    fill_input(impl.input(gpu), p.in_elems, p.dtype, seed, gpu, c.stream(gpu));
    poison(impl.output(gpu), p.out_elems * p.elem_bytes(), c.stream(gpu));
    PK_CUDA_CHECK(cudaStreamSynchronize(c.stream(gpu)));
  }
  impl.group_begin();
  for (int gpu : gpus) {
    if (impl.needs_current_device()) g.set_device(gpu);
    impl.enqueue(gpu, c.stream(gpu));
  }
  impl.group_end();
  std::vector<std::vector<char>> in(gpus.size()), out(gpus.size());
  for (int gpu : gpus) {
    g.set_device(gpu);
    PK_CUDA_CHECK(cudaStreamSynchronize(c.stream(gpu)));
    in[gpu].resize(p.in_elems * p.elem_bytes());
    out[gpu].resize(p.out_elems * p.elem_bytes());
    PK_CUDA_CHECK(cudaMemcpy(in[gpu].data(), impl.input(gpu), in[gpu].size(), cudaMemcpyDeviceToHost));
    PK_CUDA_CHECK(cudaMemcpy(out[gpu].data(), impl.output(gpu), out[gpu].size(), cudaMemcpyDeviceToHost));
  }
  c.status.check(gpus);
  uint64_t wrong = 0;
  const double tol = p.layout == kReduceScatterCols ? (p.dtype == DType::bf16 ? 1.6e-2 : 1e-5) : 0.0;
  for (int r : gpus)
    for (uint64_t i = 0; i < p.out_elems; ++i) {
      const double want = expected(p, in, r, i), got = to_float(out[r], p.dtype, i);
      if (!(std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want)))) {
        if (!wrong++)
          first = "rank " + std::to_string(r) + " element " + std::to_string(i) + ": " + std::to_string(got) + ", want " +
                  std::to_string(want);
      }
    }
  return wrong;
}

class UlyssesRanks : public ::testing::TestWithParam<PeerMode> {};

}  // namespace

TEST_P(UlyssesRanks, EveryImplementationMatchesTheHostReference) {
  if (const std::string why = need_peers(GetParam()); !why.empty()) GTEST_SKIP() << why;
  Env env(GetParam());
  const int n = env.group->size();
  ImplList impls;
  for (auto& v : {our_impls(), baseline_impls()})
    for (auto& i : v)
      if (i->nccl_config().empty() || i->nccl_config() == "default") impls.push_back(i);
  PointResults results;
  Runner runner(*env.ctx, results);
  int checked = 0;
  for (const char* coll : {"all_to_all_4d", "all_gather_cols", "reduce_scatter_cols"})
    for (DType t : {DType::bf16, DType::f32})
      for (uint64_t count : {uint64_t(3), uint64_t(37)}) {
        const Problem p = make_problem_count(coll, t, count, n, ulysses_dims(n));
        for (auto& impl : impls) {
          if (!impl->supports(p.layout) || !impl->applies(p)) continue;
          const PointSpec ps{p, LaunchMode::eager, impl};
          Row row;
          try {
            runner.measure(ps, row);
          } catch (const SkipPoint& e) {
            continue;  // e.g. NCCL on virtual ranks, TMA where the GPU lacks it
          } catch (const std::exception& e) {
            ADD_FAILURE() << ps.name() << ": " << e.what();
            continue;
          }
          EXPECT_EQ(row["verified"], "yes") << ps.name();
          std::string first;
          EXPECT_EQ(host_checked(env, *impl, p, 0xC0FFEEull + count, first), 0u) << ps.name() << ": " << first;
          ++checked;
        }
      }
  // Ours (push at least) for each of the three collectives, both dtypes, both sizes.
  EXPECT_GE(checked, 12);
}

INSTANTIATE_TEST_SUITE_P(PeerModes, UlyssesRanks, ::testing::Values(PeerMode::single, PeerMode::virt), mode_param_name);
