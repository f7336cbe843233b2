#include "microbench/launch/launch.h"

#include <chrono>
#include <stdexcept>

#include "kernels/launch/count_blocks.cuh"
#include "microbench/harness/capability.h"
#include "microbench/harness/comm.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::launch {

static constexpr int kHostWarmupLaunches = 256;

// One count_blocks of `blocks` blocks on `s` with programmatic dependent launch.
static void launch_pdl(int blocks, cudaStream_t s, unsigned long long* counter) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(CountBlocksConfig::kThreads);
  cfg.stream = s;
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &pdl;
  cfg.numAttrs = 1;
  PK_CUDA_CHECK(cudaLaunchKernelEx(&cfg, count_blocks, counter));
}

Context::Context(PeerGroup& g, const LaunchOptions& o, const std::vector<Point>&) : StudyContext(g), opt(o) {
  for (int gpu : local_gpus()) {
    group.set_device(gpu);
    PK_CUDA_CHECK(cudaMalloc(&counter_[gpu], sizeof(unsigned long long)));
    PK_CUDA_CHECK(cudaMemset(counter_[gpu], 0, sizeof(unsigned long long)));
  }
  // The host's launch paths warmed before the first point: on one H100 the first point's host time
  // per call read 14.6 us where every later point read 2.0-4.2 us. A few hundred launches of each
  // kind (a graph's launch path is warmed by each point's first, untimed, operation).
  for (int gpu : local_gpus()) {
    group.set_device(gpu);
    const bool pdl = missing_for(Point{"pdl", 1, 1}, group.topology().gpus.at(gpu)).empty();
    for (int i = 0; i < kHostWarmupLaunches; ++i) {
      count_blocks<<<1, CountBlocksConfig::kThreads, 0, stream(gpu)>>>(counter_[gpu]);
      if (pdl) launch_pdl(1, stream(gpu), counter_[gpu]);
    }
    PK_CUDA_CHECK(cudaGetLastError());
  }
  sync_local();
  group.barrier();
}

Context::~Context() {
  for (auto& [gpu, ptr] : counter_) {
    group.set_device(gpu);
    cudaFree(ptr);
  }
}

int Context::blocks(const Point& p, int gpu) const { return p.blocks ? p.blocks : group.sm_budget(gpu); }

namespace {

using Clock = std::chrono::steady_clock;

class LaunchCase : public Case {
 public:
  LaunchCase(Context& c, const Point& p) : Case(c), p_(p), info_(variant_info(p.variant)) {
    for (int gpu : c.local_gpus()) blocks_[gpu] = c.blocks(p, gpu);
    try {
      if (info_.graph)
        point_cost::within("capture", [&] {
          for (int gpu : c.local_gpus()) capture(gpu);
        });
    } catch (...) {
      destroy_graphs();  // the GPUs captured before the one that failed (no destructor runs)
      throw;
    }
  }
  ~LaunchCase() override { destroy_graphs(); }

  void enqueue() override {
    const auto t0 = Clock::now();
    for (int gpu : ctx.local_gpus()) {
      ctx.group.set_device(gpu);
      const cudaStream_t s = ctx.stream(gpu);
      if (info_.graph) {
        PK_CUDA_CHECK(cudaGraphLaunch(exec_.at(gpu), s));
      } else {
        for (int i = 0; i < p_.kernels; ++i) launch(gpu, s);
      }
    }
    host_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
    calls_ += (long long)calls_per_op(p_) * ctx.local_gpus().size();
  }
  int enqueues_per_op() const override { return calls_per_op(p_); }
  void describe(Row& row) const override { row["blocks"] = std::to_string(blocks_.begin()->second); }
  void reset_host_time() override { host_s_ = 0, calls_ = 0; }
  double host_seconds() const override { return host_s_; }
  long long calls() const override { return calls_; }

 private:
  // One kernel on `s`: the plain launch (what a framework's kernel call is), or cudaLaunchKernelEx
  // with the programmatic-serialisation attribute.
  void launch(int gpu, cudaStream_t s) {
    unsigned long long* counter = ctx.counter(gpu);
    if (!info_.pdl) {
      count_blocks<<<blocks_.at(gpu), CountBlocksConfig::kThreads, 0, s>>>(counter);
      PK_CUDA_CHECK(cudaGetLastError());
      return;
    }
    launch_pdl(blocks_.at(gpu), s, counter);
  }
  // The point's kernels captured from the GPU's second stream into one graph, instantiated once.
  // The capture is ended whatever failed inside it, so the stream is usable again.
  void capture(int gpu) {
    ctx.group.set_device(gpu);
    const cudaStream_t s = ctx.stream(gpu, 1);
    PK_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    std::string failed;
    try {
      for (int i = 0; i < p_.kernels; ++i) launch(gpu, s);
    } catch (const std::exception& e) {
      failed = e.what();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(s, &graph);
    if (!failed.empty() || ended != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      cudaGetLastError();
      throw std::runtime_error("capturing " + std::to_string(p_.kernels) + " launches: " +
                               (failed.empty() ? std::string(cudaGetErrorString(ended)) : failed));
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    PK_CUDA_CHECK(made);
    exec_[gpu] = exec;
  }

  void destroy_graphs() {
    if (exec_.empty()) return;
    point_cost::within("capture", [&] {
      for (auto& [gpu, exec] : exec_) {
        ctx.group.set_device(gpu);
        cudaGraphExecDestroy(exec);
      }
    });
    exec_.clear();
  }

  Point p_;
  const VariantInfo& info_;
  std::map<int, int> blocks_;
  std::map<int, cudaGraphExec_t> exec_;
  double host_s_ = 0;
  long long calls_ = 0;
};

uint64_t mix(uint64_t x) {  // splitmix64: the counters' start values
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

std::string missing_for(const Point& p, const GpuInfo& g) {
  if (std::string why = missing_features({Feature::device_code}, g); !why.empty()) return why;
  if (variant_info(p.variant).pdl && g.cc_major < 9)
    return "programmatic dependent launch needs compute capability >= 9.0 (" + arch_name(g) + ")";
  return "";
}

std::unique_ptr<Case> make_case(Context& c, const Point& p) {
  for (int gpu : c.local_gpus())
    if (const std::string why = missing_for(p, c.group.topology().gpus.at(gpu)); !why.empty()) throw SkipPoint(why);
  return std::make_unique<LaunchCase>(c, p);
}

Counted run_and_count(Context& c, Case& k, const Point& p, uint64_t seed) {
  std::map<int, uint64_t> start;
  for (int gpu : c.local_gpus()) {
    start[gpu] = mix(seed ^ (uint64_t(gpu) << 32)) >> 1;  // far from wrapping
    c.group.set_device(gpu);
    // On the stream the operation runs on: a pageable copy may return before its data lands, and
    // the study's streams do not wait for the default one.
    PK_CUDA_CHECK(cudaMemcpyAsync(c.counter(gpu), &start[gpu], sizeof(uint64_t), cudaMemcpyHostToDevice, c.stream(gpu)));
    PK_CUDA_CHECK(cudaStreamSynchronize(c.stream(gpu)));
  }
  untimed(c, [&] { k.enqueue(); });
  Counted r;
  for (int gpu : c.local_gpus()) {
    uint64_t now = 0;
    c.group.set_device(gpu);
    PK_CUDA_CHECK(cudaMemcpy(&now, c.counter(gpu), sizeof(uint64_t), cudaMemcpyDeviceToHost));
    const uint64_t expected = uint64_t(p.kernels) * c.blocks(p, gpu);
    const uint64_t counted = now - start[gpu];
    if (gpu == c.local_gpus().front()) r.counted = counted, r.expected = expected;
    if (counted != expected && r.first.empty())
      r.first = "GPU " + std::to_string(gpu) + " counted " + std::to_string(counted) + " blocks, not " + std::to_string(expected);
  }
  r.ok = !c.group.comm().any(!r.first.empty());
  if (!r.ok && r.first.empty()) r.first = "another rank's counter is wrong";
  return r;
}

Row Runner::describe(const Point& p, int processes) {
  const VariantInfo& info = variant_info(p.variant);
  return Row{{"study", "launch"},
             {"variant", p.variant},
             {"pdl", info.pdl ? "yes" : "no"},
             {"graph", info.graph ? "yes" : "no"},
             {"kernels", std::to_string(p.kernels)},
             {"blocks", p.blocks ? std::to_string(p.blocks) : ""},
             {"threads", std::to_string(CountBlocksConfig::kThreads)},
             {"processes", std::to_string(processes)},
             {"calls_per_op", std::to_string(calls_per_op(p))},
             {"verified", "no"}};
}

void Runner::run(benchmark::State& state, const Point& p) {
  run_timed_point(state, results_, p.name(), describe(p, ctx_.group.processes()), kTimeColumn, ctx_.opt.timing.gap_ms,
                  [&](Row& row) { measure(p, row); });
}

void Runner::measure(const Point& p, Row& row) {
  Context& c = ctx_;
  std::unique_ptr<Case> k;
  point_cost::within("setup", [&] { collectively(c.group.comm(), [&] { k = make_case(c, p); }); });
  k->describe(row);
  point_cost::within("first-run", [&] { untimed(c, [&] { k->enqueue(); }); });
  k->reset_host_time();
  const TimedOp t = time_case(*k);
  const double host_s = k->host_seconds();
  const long long calls = k->calls();

  const Counted chk = point_cost::within("verify", [&] { return run_and_count(c, *k, p, c.opt.seed + 1); });
  row["counted"] = std::to_string(chk.counted);
  row["expected"] = std::to_string(chk.expected);
  if (!chk.ok) throw std::runtime_error("wrong count: " + chk.first);
  row["verified"] = "yes";

  put_per_unit_times(row, t.ms, t.iters, p.kernels, "us_per_kernel");
  if (calls > 0) {
    row["host_us_per_call"] = fmt_num(host_s * 1e6 / double(calls));
    row["host_us_per_kernel"] = fmt_num(host_s * 1e6 / (double(calls) / calls_per_op(p) * p.kernels));
  }
}

}  // namespace pk::launch
