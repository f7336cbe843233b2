// The study's shared run-time pieces (see primitives.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "kernels/sync_timing.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/primitives/primitives.h"

namespace pk::prim {
namespace {

constexpr uint64_t kMaxRecorded = 1u << 20;  // cycle counts per GPU
constexpr uint64_t kCyclesBytes = kMaxRecorded * sizeof(uint32_t);
constexpr uint64_t kRecordOffset = kCyclesBytes;
constexpr uint64_t kMismatchOffset = kRecordOffset + 256;
constexpr uint64_t kScratchBytes = kMismatchOffset + 256;

std::string encode(const Row& r) {
  std::string s;
  for (const auto& [k, v] : r) s += k + '\x1f' + v + '\x1e';
  return s;
}
Row decode(const std::string& s) {
  Row r;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t us = s.find('\x1f', pos), rs = s.find('\x1e', pos);
    if (us == std::string::npos || rs == std::string::npos || us > rs) break;
    r[s.substr(pos, us - pos)] = s.substr(us + 1, rs - us - 1);
    pos = rs + 1;
  }
  return r;
}

}  // namespace

Context::Context(PeerGroup& g, Options o) : group_(g), opt_(std::move(o)), status_(g), gate_(g), streams_(g) {
  if (opt_.iters < 1 || static_cast<uint64_t>(total_iters()) > kMaxRecorded)
    throw ArgError("--iters must be in 1.." + std::to_string(kMaxRecorded - opt_.warmup));
  scratch_ = group_.alloc(kScratchBytes, "primitives timing scratch");
  collectively(comm(), [&] {
    for (int gpu : group_.local_gpus()) {
      group_.set_device(gpu);
      PK_CUDA_CHECK(cudaMemset(scratch_.local(gpu), 0, kScratchBytes));
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
}

Context::~Context() = default;

const SymBuf& Context::buf(const std::string& name, uint64_t bytes) {
  auto it = bufs_.find(name);
  if (it != bufs_.end()) {
    if (it->second.bytes() < bytes) throw std::logic_error("buffer " + name + " is smaller than asked");
    return it->second;
  }
  point_cost::Phase cost("setup");
  return bufs_[name] = group_.alloc(bytes, name);
}

uint32_t* Context::cycles(int gpu) { return reinterpret_cast<uint32_t*>(scratch_.local(gpu)); }
TimingRecord* Context::record(int gpu) { return reinterpret_cast<TimingRecord*>(scratch_.local(gpu) + kRecordOffset); }
unsigned* Context::mismatches(int gpu) { return reinterpret_cast<unsigned*>(scratch_.local(gpu) + kMismatchOffset); }

void Context::on(int gpu, const std::function<void()>& fn) {
  collectively(comm(), [&] {
    if (!drives(gpu)) return;
    group_.set_device(gpu);
    fn();
  });
}

void Context::zero(const SymBuf& b, uint64_t bytes) {
  point_cost::Phase cost("fill");
  collectively(comm(), [&] {
    for (int gpu : group_.local_gpus()) {
      group_.set_device(gpu);
      PK_CUDA_CHECK(cudaMemset(b.local(gpu), 0, bytes));
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
  comm().barrier();  // no GPU may signal a peer whose flags are still being zeroed
}

void Context::fill(int gpu, void* p, uint64_t bytes, uint64_t seed) {
  point_cost::Phase cost("fill");
  on(gpu, [&] {
    fill_pattern(p, bytes, seed, 0);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  });
}

void Context::poison(int gpu, void* p, uint64_t bytes) {
  point_cost::Phase cost("fill");
  on(gpu, [&] {
    PK_CUDA_CHECK(cudaMemset(p, 0xC3, bytes));
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  });
}

void Context::check(int gpu, const void* p, uint64_t bytes, uint64_t seed, const std::string& what) {
  point_cost::Phase cost("verify");
  on(gpu, [&] {
    const PatternCheck c = check_pattern(p, bytes, seed, 0);
    if (c.mismatched_words)
      throw std::runtime_error(what + ": " + std::to_string(c.mismatched_words) + " of " + std::to_string(bytes / 8) +
                               " words wrong (first at byte " + std::to_string(c.first_bad_byte) + ")");
  });
}

void Context::launch_together(const std::vector<int>& gpus, const std::function<void(int)>& launch) {
  point_cost::Phase cost("samples");  // the latency kernels' warm-up and timed operations
  std::string err;
  std::vector<int> mine;
  try {
    for (int g : gpus) {
      if (!drives(g)) continue;
      mine.push_back(g);
      gate_.arm(g, stream(g), deadline(g));
      launch(g);
      PK_CUDA_CHECK_LAUNCH();
    }
  } catch (const std::exception& e) {
    err = e.what();  // the gate still opens: the other processes wait on it
  }
  gate_.open();
  try {
    for (int g : mine) {
      group_.set_device(g);
      PK_CUDA_CHECK(cudaStreamSynchronize(stream(g)));
    }
    status_.check(mine);
  } catch (const std::exception& e) {
    if (err.empty()) err = e.what();
  }
  err = comm().first_error(err);
  if (!err.empty()) throw DeviceFailure(err);
}

std::vector<double> Context::collect_ns(int gpu, int count, int skip) {
  std::vector<double> ns;
  on(gpu, [&] {
    TimingRecord rec{};
    PK_CUDA_CHECK(cudaMemcpy(&rec, record(gpu), sizeof rec, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> cyc(count);
    PK_CUDA_CHECK(cudaMemcpy(cyc.data(), cycles(gpu), cyc.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (rec.gt_end <= rec.gt_start || rec.clk_end <= rec.clk_start)
      throw std::runtime_error("the timed kernel did not record its timing (did it run to the end?)");
    const double cycles_per_ns = double(rec.clk_end - rec.clk_start) / double(rec.gt_end - rec.gt_start);
    for (int i = skip; i < count; ++i) ns.push_back(cyc[i] / cycles_per_ns);
  });
  ns = comm().broadcast_doubles(ns, group_.owner_rank(gpu));
  double sum = 0;
  for (double x : ns) sum += x;
  point_cost::timed(sum * 1e-6);  // the recorded samples: the point's timed work
  return ns;
}

unsigned long long Context::collect_sink(int gpu) {
  unsigned long long sink = 0;
  on(gpu, [&] {
    TimingRecord rec{};
    PK_CUDA_CHECK(cudaMemcpy(&rec, record(gpu), sizeof rec, cudaMemcpyDeviceToHost));
    sink = rec.sink;
  });
  // Through a string: a 64-bit value does not survive a double.
  const std::string s = comm().broadcast_string(std::to_string(sink), group_.owner_rank(gpu));
  return std::stoull(s);
}

unsigned Context::collect_mismatches(int gpu) {
  unsigned m = 0;
  on(gpu, [&] { PK_CUDA_CHECK(cudaMemcpy(&m, mismatches(gpu), sizeof m, cudaMemcpyDeviceToHost)); });
  return static_cast<unsigned>(comm().max(static_cast<double>(m)));
}

double Context::bandwidth(int gpu, uint64_t bytes, const std::function<void(cudaStream_t)>& enqueue, int* ops,
                          const std::function<void()>& before_last) {
  TimingOptions t;
  t.samples = opt_.bw_samples;
  t.warmup_ms = 5;
  t.target_sample_ms = opt_.target_sample_ms;
  t.gap_ms = 1;
  t.timeout_ms = std::max(2000.0, opt_.timeout_ms);
  std::vector<Flow> flows;
  if (drives(gpu)) {
    Flow f;
    f.index = 0;
    f.gpu = gpu;
    f.stream = stream(gpu);
    f.enqueue = [&, gpu](int) { enqueue(stream(gpu)); };
    flows.push_back(f);
  }
  FlowTimer timer(group_, flows, 1, gate_, status_, t);
  timer.calibrate();
  std::vector<double> ms;
  for (int s = 0; s < t.samples; ++s) {
    if (s == t.samples - 1) before_last();
    ms.push_back(timer.sample().step_ms_per_op);
  }
  if (ops) *ops = timer.iters_per_sample();
  idle_gap(t.gap_ms);
  const double med = summarize(ms).median;
  return med > 0 ? bytes / (med * 1e6) : 0;
}

Row Context::share(const Row& r, int root_rank) {
  if (comm().size() == 1) return r;
  return decode(comm().broadcast_string(encode(r), root_rank));
}

Row latency_row(const Spec& s, const std::vector<double>& ns, bool round_trip, const std::string& clock_source) {
  Row r;
  if (ns.empty()) throw std::runtime_error("no samples");
  const SampleStats st = summarize(ns);
  const double scale = round_trip ? 0.5 : 1.0;
  r["value"] = fmt_num(st.median * scale, 5);
  r["median_ns"] = fmt_num(st.median * scale, 5);
  r["p10_ns"] = fmt_num(st.p10 * scale, 5);
  r["p90_ns"] = fmt_num(st.p90 * scale, 5);
  r["min_ns"] = fmt_num(st.min * scale, 5);
  if (round_trip) r["round_trip_ns"] = fmt_num(st.median, 5);
  r["samples"] = std::to_string(st.n);
  r["clock_source"] = clock_source;
  (void)s;
  return r;
}

double lonely_wait(Context& c, const std::string& style) {
  Spec s;
  s.op = kOpLonelyWait;
  s.style = style;
  s.scope = "thread";
  s.metric = kMetricOneWay;
  if (style == kStyleNvshmem) s.mode = kNvshmemBoundedMode;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run_spec(c, s);
  } catch (const DeviceFailure& e) {
    if (std::string(e.what()).find("timeout") == std::string::npos) throw;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  throw std::runtime_error("the lonely wait did not fail");
}

void release_libraries() {
  release_nvshmem();
  release_nccl();
}

Row run_spec(Context& c, const Spec& s) {
  if (s.gpus > c.group().size())
    throw SkipPoint("needs " + std::to_string(s.gpus) + " GPUs, this run has " + std::to_string(c.group().size()));
  Row (*runner)(Context&, const Spec&) = nullptr;
#define PK_PRIM_STYLE(name, fn) \
  if (s.style == name) runner = fn;
#include "microbench/primitives/style_list.h"
#undef PK_PRIM_STYLE
  if (!runner) throw std::logic_error("unknown style " + s.style);
  Row r = runner(c, s);
  if (s.style == kStyleNvshmem || s.memory == "nvshmem_heap") r["library"] = nvshmem_version_text();
  if (s.style == kStyleNcclDev || s.memory == "nccl_window") r["library"] = nccl_version_text();
  r["gpu_src"] = std::to_string(c.a());
  if (s.gpus > 1) r["gpu_dst"] = std::to_string(c.b());
  return r;
}

}  // namespace pk::prim
