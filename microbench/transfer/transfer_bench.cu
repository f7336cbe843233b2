// pkbench_transfer: GPU->GPU transfer bandwidth by mechanism, direction, pattern, message
// size, SM count and per-mechanism knobs. One Google Benchmark per point; one tidy CSV row
// per point (schema: transfer_columns()).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "../harness/args.h"
#include "../harness/cuda_check.h"
#include "../harness/device_runtime.h"
#include "../harness/gbench_csv.h"
#include "../harness/metadata.h"
#include "../harness/nvml.h"
#include "../harness/peer_group.h"
#include "../harness/stats.h"
#include "../harness/timing.h"
#include "mechanism.h"
#include "transfer_grid.h"

namespace pk::transfer {
namespace {

constexpr unsigned char kPoison = 0xA5;
uint64_t seed_of(int gpu) { return 0x5eed0000ull + static_cast<uint64_t>(gpu); }

struct StudyOptions {
  TimingOptions timing;
  uint64_t buffer_bytes = 1ull << 30;  // per source buffer, and per incoming flow at a destination
  double study_warmup_ms = 300;
};

class TransferStudy {
 public:
  TransferStudy(const Topology& t, PeerGroup& g, PointResults& r, StudyOptions o)
      : topo_(t), group_(g), results_(r), opt_(o) {}

  // Buffers sized for the largest fan-in among the points; sources filled with their pattern.
  void setup(const std::vector<TransferPoint>& points) {
    const int n = topo_.count();
    std::vector<int> fan_in(n, 1);
    for (const auto& p : points) {
      try {
        std::vector<int> in(n, 0);
        for (const auto& f : flows_for(p, n)) ++in[f.dst];
        for (int g = 0; g < n; ++g) fan_in[g] = std::max(fan_in[g], in[g]);
      } catch (const std::exception&) {  // reported by the point itself when it runs
      }
    }
    for (int g = 0; g < n; ++g) {
      if (!group_.drives(g)) continue;
      src_[g] = static_cast<char*>(group_.alloc(g, opt_.buffer_bytes));
      dst_bytes_[g] = opt_.buffer_bytes * fan_in[g];
      dst_[g] = static_cast<char*>(group_.alloc(g, dst_bytes_[g]));
      fill_pattern(g, src_[g], opt_.buffer_bytes, seed_of(g), 0);
      PK_CUDA_CHECK(cudaMemset(dst_[g], kPoison, dst_bytes_[g]));
    }
    for (int g = 0; g < n; ++g)
      if (group_.drives(g)) {
        PK_CUDA_CHECK(cudaSetDevice(g));
        PK_CUDA_CHECK(cudaDeviceSynchronize());
      }
  }

  // Memory-bound work on every GPU until clocks and power settle.
  void warm_up() {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    while (std::chrono::duration<double, std::milli>(clock::now() - t0).count() < opt_.study_warmup_ms) {
      for (auto& [g, p] : dst_) fill_pattern(g, p, dst_bytes_[g], 1, 0);
      for (auto& [g, p] : dst_) {
        PK_CUDA_CHECK(cudaSetDevice(g));
        PK_CUDA_CHECK(cudaDeviceSynchronize());
      }
    }
    for (auto& [g, p] : dst_) PK_CUDA_CHECK(cudaMemset(p, kPoison, dst_bytes_[g]));
  }

  void run_point(benchmark::State& state, const TransferPoint& p) {
    Row row = describe(p);
    measure_point(state, row, [&] { measure(state, p, row); });
    results_.put(p.name(), row);
    idle_gap(opt_.timing.gap_ms);
  }

 private:
  static Row describe(const TransferPoint& p) {
    auto knob = [](int v) { return v ? std::to_string(v) : std::string(); };
    return Row{{"study", "transfer"},
               {"sweep", p.sweep},
               {"mechanism", p.mechanism},
               {"direction", p.direction},
               {"pattern", p.pattern},
               {"src_gpu", std::to_string(p.gpu_a)},
               {"dst_gpu", std::to_string(p.pattern == "local" ? p.gpu_a : p.gpu_b)},
               {"message_bytes", std::to_string(p.message_bytes)},
               {"sms", knob(p.sms)},
               {"blocks_per_sm", knob(p.blocks_per_sm)},
               {"threads", knob(p.threads)},
               {"pipeline_depth", knob(p.depth)},
               {"vec_bytes", knob(p.vec_bytes)},
               {"unroll", knob(p.unroll)},
               {"verified", "no"}};
  }

  unsigned min_clock(const std::vector<int>& devs) const {
    unsigned c = 0;
    for (int d : devs)
      if (auto mhz = nvml::sm_clock_mhz(topo_.gpus[d].pci_bus_id)) c = c ? std::min(c, *mhz) : *mhz;
    return c;
  }

  void measure(benchmark::State& state, const TransferPoint& p, Row& row) {
    const int n = topo_.count();
    const std::vector<FlowPair> pairs = flows_for(p, n);
    const Mechanism& mech = mechanism(p.mechanism);
    const GpuInfo& g0 = topo_.gpus[pairs[0].issuer];
    const Plan plan = make_plan(p.total_bytes, p.message_bytes, p.max_ops ? p.max_ops : mech.default_max_ops(),
                                mech.op_granule(p), g0.l2_bytes, opt_.buffer_bytes);
    row["flows"] = std::to_string(pairs.size());
    row["bytes_per_op"] = std::to_string(plan.bytes_per_op);
    row["ops_per_flow"] = std::to_string(plan.ops);
    row["groups"] = std::to_string(plan.groups);
    row["src_gpu"] = std::to_string(pairs[0].src);
    row["dst_gpu"] = std::to_string(pairs[0].dst);
    const LineRate lr = topo_.line_rate(pairs[0].src, pairs[0].dst);
    row["line_rate_gbps"] = lr.gbps > 0 ? fmt_num(lr.gbps) : "";
    row["line_rate_source"] = lr.source;
    std::set<int> used;
    for (const auto& f : pairs) used.insert(f.src), used.insert(f.dst);
    row["gpus_used"] = std::to_string(used.size());

    // Each flow writes its own slot of the destination buffer (fan-in patterns share a GPU).
    std::map<int, int> next_slot;
    std::vector<std::unique_ptr<FlowOp>> ops;
    std::vector<Flow> flows;
    std::vector<FlowBuffers> bufs;
    for (size_t i = 0; i < pairs.size(); ++i) {
      const FlowPair& fp = pairs[i];
      FlowBuffers b;
      b.src_gpu = fp.src;
      b.dst_gpu = fp.dst;
      b.issuer = fp.issuer;
      b.src_buf = static_cast<char*>(group_.peer_ptr(fp.issuer, fp.src, src_.at(fp.src)));
      b.src_buf_bytes = opt_.buffer_bytes;
      b.dst_buf = static_cast<char*>(group_.peer_ptr(fp.issuer, fp.dst, dst_.at(fp.dst)));
      b.dst_buf_bytes = dst_bytes_.at(fp.dst);
      b.dst_offset = opt_.buffer_bytes * next_slot[fp.dst]++;
      b.bytes_per_op = plan.bytes_per_op;
      b.ops = plan.ops;
      b.sms = sms_per_flow(p, pairs, fp.issuer);
      b.deadline = status_.deadline(fp.issuer, opt_.timing.timeout_ms);
      PK_CUDA_CHECK(cudaSetDevice(fp.issuer));
      ops.push_back(mech.prepare(p, b, topo_.gpus[fp.issuer]));
      if (ops.back()->enqueues_per_op() > opt_.timing.max_enqueued)
        throw ArgError("one operation queues " + std::to_string(ops.back()->enqueues_per_op()) +
                       " calls, more than --max-enqueued=" + std::to_string(opt_.timing.max_enqueued));
      FlowOp* op = ops.back().get();
      const int groups = plan.groups;
      cudaStream_t s = streams_.get(fp.issuer, static_cast<int>(i));
      flows.push_back(Flow{fp.issuer, s, op->enqueues_per_op(), [op, s, groups](int k) { op->enqueue(s, k % groups); }});
      bufs.push_back(b);
      // Poison what this flow will write, so a skipped message cannot pass the check.
      PK_CUDA_CHECK(cudaSetDevice(fp.dst));
      PK_CUDA_CHECK(cudaMemset(dst_.at(fp.dst) + b.dst_offset, kPoison, plan.bytes_per_op * plan.groups));
    }
    for (const auto& b : bufs) {
      PK_CUDA_CHECK(cudaSetDevice(b.dst_gpu));
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }

    FlowTimer timer(std::move(flows), gate_, status_, opt_.timing);
    const std::vector<int> devs = timer.devices();
    row["sm_clock_mhz_start"] = std::to_string(min_clock(devs));
    row["sm_clock_mhz_max"] = std::to_string(g0.sm_clock_max_mhz);
    const int k = timer.calibrate();
    std::vector<double> step_ms;
    std::vector<std::vector<double>> flow_ms(pairs.size());
    for (auto _ : state) {
      Sample s = timer.sample();
      state.SetIterationTime(s.step_ms_per_op / 1e3);
      step_ms.push_back(s.step_ms_per_op);
      for (size_t i = 0; i < pairs.size(); ++i) flow_ms[i].push_back(s.flow_ms_per_op[i]);
    }
    row["sm_clock_mhz_end"] = std::to_string(min_clock(devs));

    // A wrong result is an error, never a number. Every group an operation wrote is checked.
    const int groups_written = std::min(plan.groups, timer.ops_run());
    for (const auto& b : bufs) {
      for (int gi = 0; gi < groups_written; ++gi) {
        const uint64_t at = gi * plan.bytes_per_op;
        PatternCheck c = check_pattern(b.dst_gpu, dst_.at(b.dst_gpu) + b.dst_offset + at, plan.bytes_per_op,
                                       seed_of(b.src_gpu), b.src_offset + at);
        if (c.mismatched_words)
          throw std::runtime_error("verification failed: GPU" + std::to_string(b.src_gpu) + "->GPU" +
                                   std::to_string(b.dst_gpu) + " group " + std::to_string(gi) + ": " +
                                   std::to_string(c.mismatched_words) + " of " +
                                   std::to_string(plan.bytes_per_op / 8) + " words differ; first at byte " +
                                   std::to_string(c.first_bad_byte));
      }
    }
    row["verified"] = "yes";

    const SampleStats st = summarize(step_ms);
    const double bytes = static_cast<double>(plan.bytes_per_op);
    // Per direction: all bytes that crossed from one GPU to another, over the step time.
    const double per_direction = bytes * pairs.size() / directions_of(pairs);
    const double gbps = per_direction / (st.median * 1e6);
    double fmin = 0, fmax = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      const double fg = bytes / (summarize(flow_ms[i]).median * 1e6);
      fmin = i ? std::min(fmin, fg) : fg;
      fmax = i ? std::max(fmax, fg) : fg;
    }
    row["iters_per_sample"] = std::to_string(k);
    row["samples"] = std::to_string(st.n);
    row["time_us_median"] = fmt_num(st.median * 1e3);
    row["time_us_min"] = fmt_num(st.min * 1e3);
    row["time_us_max"] = fmt_num(st.max * 1e3);
    row["cv"] = fmt_num(st.cv, 4);
    row["gbps"] = fmt_num(gbps);
    row["gbps_best"] = fmt_num(per_direction / (st.min * 1e6));
    row["gbps_total"] = fmt_num(bytes * pairs.size() / (st.median * 1e6));
    row["gbps_flow_min"] = fmt_num(fmin);
    row["gbps_flow_max"] = fmt_num(fmax);
    if (lr.gbps > 0) row["pct_of_line_rate"] = fmt_num(100.0 * gbps / lr.gbps, 4);
    state.counters["GB/s"] = gbps;
    if (lr.gbps > 0) state.counters["%line"] = 100.0 * gbps / lr.gbps;
  }

  const Topology& topo_;
  PeerGroup& group_;
  PointResults& results_;
  StudyOptions opt_;
  Gate gate_;
  StatusBoard status_;
  StreamPool streams_;
  std::map<int, char*> src_, dst_;
  std::map<int, uint64_t> dst_bytes_;
};

}  // namespace
}  // namespace pk::transfer

int main(int argc, char** argv) {
  pk::init_cuda_environment();
  using namespace pk;
  using namespace pk::transfer;
  GridOptions grid;
  StudyOptions study;
  std::string csv_path = "transfer.csv";
  bool list_only = false;
  Flags flags;
  std::string presets, mechs;
  for (const auto& s : preset_names()) presets += (presets.empty() ? "" : ", ") + s;
  flags.add("preset", &grid.preset, "grid to run: " + presets);
  flags.add("mechanisms", &grid.mechanisms, "comma list of ce, tma_bulk, tma_tile, reg (or all)");
  flags.add("directions", &grid.directions, "push, pull, mixed (source pushes and destination pulls at once)");
  flags.add("patterns", &grid.patterns, "one_way, bidir, local, one_to_all, all_to_one, all_pairs");
  flags.add("sizes", &grid.sizes, "message sizes: list or range, e.g. 16:1G or 2K,16K or 16:1M:x4");
  flags.add("total", &grid.total_bytes, "bytes per flow per operation (e.g. 1G); 0 keeps the preset's", true);
  flags.add("max-ops", &grid.max_ops, "messages per operation at most (tiny messages); 0: mechanism default", false);
  flags.add("sms", &grid.sms, "SMs per issuing GPU: list/range or all");
  flags.add("threads", &grid.threads, "threads per block (TMA: 32 per issuing warp)");
  flags.add("depths", &grid.depths, "TMA pipeline stages per warp");
  flags.add("blocks-per-sm", &grid.blocks_per_sm, "blocks pinned per SM");
  flags.add("vecs", &grid.vecs, "register vector width in bytes: 4, 8, 16");
  flags.add("unrolls", &grid.unrolls, "register loads in flight per thread: 1, 2, 4, 8");
  flags.add("gpus", &grid.gpus, "A,B: source and destination (root A for one_to_all/all_to_one)");
  flags.add("gpu-counts", &grid.gpu_counts, "fan patterns over the first K GPUs, for each K listed (e.g. 2,4,8)");
  flags.add("csv", &csv_path, "tidy CSV output (written atomically after every point)");
  flags.add("buffer", &study.buffer_bytes, "per-GPU source buffer (and per incoming flow destination)", true);
  flags.add("samples", &study.timing.samples, "timed samples per point");
  flags.add("warmup-ms", &study.timing.warmup_ms, "warm-up per point");
  flags.add("study-warmup-ms", &study.study_warmup_ms, "warm-up of every GPU before the first point");
  flags.add("target-sample-ms", &study.timing.target_sample_ms, "operations per sample are batched to last this long");
  flags.add("gap-ms", &study.timing.gap_ms, "idle time between points");
  flags.add("timeout-ms", &study.timing.timeout_ms, "limit for any spin-wait (a hang becomes an error)");
  flags.add("max-enqueued", &study.timing.max_enqueued, "calls queued behind the start gate at most");
  flags.add_bool("list", &list_only, "print the points and exit");
  try {
    if (flags.parse(&argc, argv)) {
      std::printf("%s\nmechanisms:\n", flags.usage("pkbench_transfer").c_str());
      for (const Mechanism* m : mechanisms()) std::printf("  %-9s %s\n", m->name().c_str(), m->summary().c_str());
      return 0;
    }
    if (std::find(preset_names().begin(), preset_names().end(), grid.preset) == preset_names().end())
      throw ArgError("unknown preset '" + grid.preset + "' (known: " + presets + ")");
    if (study.timing.samples < 1) throw ArgError("--samples must be >= 1");
    if (study.timing.timeout_ms <= 0) throw ArgError("--timeout-ms must be > 0");
    if (study.buffer_bytes == 0 || study.buffer_bytes % (16 * 1024))
      throw ArgError("--buffer must be a positive multiple of 16 KiB");
  } catch (const ArgError& e) {
    std::fprintf(stderr, "pkbench_transfer: error: %s\n", e.what());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  Topology topo = discover_topology();
  if (topo.count() == 0) {
    std::fprintf(stderr, "pkbench_transfer: no GPU to measure (%s)\n", topo.no_gpu_reason.c_str());
    return 3;
  }
  std::fprintf(stderr, "%s", topo.describe().c_str());
  if (!nvml::available())
    std::fprintf(stderr, "note: NVML unavailable (%s): no line rate, no clock readings\n",
                 nvml::unavailable_reason().c_str());
  std::vector<TransferPoint> points;
  try {
    int dropped = 0;
    points = build_grid(grid, topo.gpus[0], &dropped);
    std::fprintf(stderr, "%zu points (%d tuning combinations that do not fit were left out)\n", points.size(), dropped);
  } catch (const ArgError& e) {
    std::fprintf(stderr, "pkbench_transfer: error: %s\n", e.what());
    return 2;
  }
  if (list_only) {
    for (const auto& p : points) std::printf("%s [%s]\n", p.name().c_str(), p.sweep.c_str());
    return 0;
  }
  try {
    auto group = make_single_process_group(topo);
    PointResults results;
    TransferStudy st(topo, *group, results, study);
    st.setup(points);
    for (const auto& p : points) {
      benchmark::RegisterBenchmark(p.name().c_str(), [&st, p](benchmark::State& s) { st.run_point(s, p); })
          ->UseManualTime()
          ->Iterations(study.timing.samples)
          ->Unit(benchmark::kMicrosecond);
    }
    TidyCsv csv(csv_path, transfer_columns());
    csv.flush();  // header now: an interrupted run still leaves a valid file
    TidyCsvReporter reporter(csv, results, metadata_row(topo, group->mode()));
    st.warm_up();
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    std::fprintf(stderr, "pkbench_transfer: %d rows (%d errors, %d skipped) -> %s\n", reporter.rows(),
                 reporter.errors(), reporter.skipped(), csv_path.c_str());
    return reporter.errors() ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_transfer: fatal: %s\n", e.what());
    return 1;
  }
}
