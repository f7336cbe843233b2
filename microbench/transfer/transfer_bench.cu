// pkbench_transfer: GPU->GPU transfer bandwidth by mechanism, direction, pattern, message
// size, SM count and per-mechanism knobs. One Google Benchmark per point; one tidy CSV row
// per point (schema: transfer_columns()). Runs as one process driving every GPU, or one
// process per GPU under mpirun (--peer-mode=ipc|vmm): each process issues the flows of the
// GPUs it drives and checks the destinations it owns.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/nvml.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/study_point.h"
#include "microbench/harness/timing.h"
#include "microbench/transfer/mechanism.h"
#include "microbench/transfer/transfer_grid.h"

namespace pk::transfer {

// What --help says the binary measures.
constexpr const char* kStudyDescription =
    "GPU-to-GPU transfer bandwidth: copy engine, TMA and register mechanisms";

namespace {

constexpr unsigned char kPoison = 0xA5;
uint64_t seed_of(int gpu) { return 0x5eed0000ull + static_cast<uint64_t>(gpu); }

// One warm-up run of at least 1 ms per point (the harness's default is two of at least 2 ms):
// the study-wide warm-up has the GPUs busy and points follow one another without a gap. Both
// ways on one H100 (results/h100x1/harness-cost/), the 884 points of each run agreed:
// time_us_median ratio median 1.000 (p10 0.996, p90 1.006), the same operations per sample;
// the median harness cost per point fell from 6.25 to 4.15 ms.
TimingOptions transfer_timing() {
  TimingOptions t;
  t.warmup_runs = 1;
  t.warmup_ms = 1;
  return t;
}

struct StudyOptions {
  TimingOptions timing = transfer_timing();
  uint64_t buffer_bytes = 1ull << 30;  // per source buffer, and per incoming flow at a destination
  double study_warmup_ms = 300;
};

// One flow of a point, as every process sees it.
struct FlowPlan {
  FlowPair pair;
  uint64_t dst_offset = 0;  // its slot in the destination buffer (fan-in patterns share a GPU)
};

class TransferStudy : private GatedRig {
 public:
  TransferStudy(PeerGroup& g, PointResults& r, StudyOptions o) : GatedRig(g, r), opt_(o) {}

  // Symmetric buffers sized for the largest fan-in among the points; sources filled with
  // their GPU's pattern, destinations poisoned. Collective.
  void setup(const std::vector<TransferPoint>& points) {
    const int n = topo_.count();
    int fan_in = 1;
    for (const auto& p : points) {
      try {
        std::vector<int> in(n, 0);
        for (const auto& f : flows_for(p, n)) fan_in = std::max(fan_in, ++in[f.dst]);
      } catch (const std::exception&) {  // reported by the point itself when it runs
      }
    }
    src_ = group_.alloc(opt_.buffer_bytes, "transfer source");
    dst_ = group_.alloc(opt_.buffer_bytes * fan_in, "transfer destination");
    collectively(group_.comm(), [&] {
      for (int g : group_.local_gpus()) {
        group_.set_device(g);
        fill_pattern(src_.local(g), opt_.buffer_bytes, seed_of(g), 0);
        PK_CUDA_CHECK(cudaMemset(dst_.local(g), kPoison, dst_.bytes()));
        PK_CUDA_CHECK(cudaDeviceSynchronize());
      }
    });
  }

  // Memory-bound work on every local GPU until clocks and power settle.
  void warm_up() {
    using clock = std::chrono::steady_clock;
    collectively(group_.comm(), [&] {
      const auto t0 = clock::now();
      while (std::chrono::duration<double, std::milli>(clock::now() - t0).count() < opt_.study_warmup_ms) {
        for (int g : group_.local_gpus()) {
          group_.set_device(g);
          fill_pattern(dst_.local(g), dst_.bytes(), 1, 0);
        }
        sync_local();
      }
      for (int g : group_.local_gpus()) {
        group_.set_device(g);
        PK_CUDA_CHECK(cudaMemset(dst_.local(g), kPoison, dst_.bytes()));
      }
      sync_local();
    });
  }

  void run_point(benchmark::State& state, const TransferPoint& p) {
    run_described_point(state, results_, p.name(), describe(p), opt_.timing.gap_ms, [&](Row& row) { measure(state, p, row); });
  }

 private:
  static Row describe(const TransferPoint& p) {
    Row r{{"study", "transfer"},
          {"sweep", p.sweep},
          {"mechanism", p.mechanism},
          {"direction", p.direction},
          {"pattern", p.pattern},
          {"src_gpu", std::to_string(p.gpu_a)},
          {"dst_gpu", std::to_string(p.pattern == "local" ? p.gpu_a : p.gpu_b)},
          {"message_bytes", std::to_string(p.message_bytes)},
          {"verified", "no"}};
    for (const auto& [k, v] : p.knobs) r[k] = std::to_string(v);
    return r;
  }

  void sync_local() {
    for (int g : group_.local_gpus()) {
      group_.set_device(g);
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
  }

  // Lowest SM clock over every GPU in `gpus` (each process reads its own).
  double min_clock(const std::set<int>& gpus) {
    point_cost::Phase cost("clock");
    double c = 1e9;
    for (int g : gpus)
      if (group_.drives(g))
        if (auto mhz = nvml::sm_clock_mhz(topo_.gpus[g].pci_bus_id)) c = std::min(c, double(*mhz));
    c = group_.comm().min(c);
    return c >= 1e9 ? 0 : c;
  }

  // Poisons, on the GPUs this process drives, every destination region of the point.
  void poison(const std::vector<FlowPlan>& flows, const Plan& plan) {
    collectively(group_.comm(), [&] {
      for (const FlowPlan& f : flows)
        if (group_.drives(f.pair.dst)) {
          group_.set_device(f.pair.dst);
          PK_CUDA_CHECK(cudaMemset(dst_.local(f.pair.dst) + f.dst_offset, kPoison, plan.bytes_per_op * plan.groups));
        }
      sync_local();
    });
  }

  // A GPU that lacks what the mechanism needs skips the point.
  void skip_without_features(const Mechanism& mech, const std::vector<FlowPair>& pairs) const {
    for (const auto& f : pairs)
      if (auto why = missing_features(mech.needs(), topo_.gpus[f.issuer]); !why.empty())
        throw SkipPoint(mech.name() + " on GPU" + std::to_string(f.issuer) + ": " + why);
  }

  // Reachability is the same on every process: an unreachable pair skips everywhere.
  void skip_unreachable(const std::vector<FlowPair>& pairs) const {
    for (const auto& f : pairs)
      for (int owner : {f.src, f.dst})
        if (!topo_.can_access(f.issuer, owner))
          throw SkipPoint("GPU" + std::to_string(f.issuer) + " cannot reach GPU" + std::to_string(owner) + "'s memory");
  }

  // The point's shape in its row; returns the GPUs it uses.
  static std::set<int> describe_flows(Row& row, const std::vector<FlowPair>& pairs, const Plan& plan, const LineRate& lr) {
    row["flows"] = std::to_string(pairs.size());
    row["bytes_per_op"] = std::to_string(plan.bytes_per_op);
    row["ops_per_flow"] = std::to_string(plan.ops);
    row["groups"] = std::to_string(plan.groups);
    row["src_gpu"] = std::to_string(pairs[0].src);
    row["dst_gpu"] = std::to_string(pairs[0].dst);
    row["line_rate_gbps"] = lr.gbps > 0 ? fmt_num(lr.gbps) : "";
    row["line_rate_source"] = lr.source;
    std::set<int> used;
    for (const auto& f : pairs) used.insert(f.src), used.insert(f.dst);
    row["gpus_used"] = std::to_string(used.size());
    return used;
  }

  // Each flow's slot in its destination buffer (flows into one GPU take consecutive slots).
  std::vector<FlowPlan> place_flows(const std::vector<FlowPair>& pairs) const {
    std::vector<FlowPlan> flows;
    std::map<int, int> next_slot;
    for (const FlowPair& fp : pairs) flows.push_back({fp, opt_.buffer_bytes * next_slot[fp.dst]++});
    return flows;
  }

  // The operations of the flows this process issues (those of the GPUs it drives), as the
  // timer's flows; `ops` keeps them alive. Collective.
  std::vector<Flow> prepare_flows(const TransferPoint& p, const Mechanism& mech, const std::vector<FlowPair>& pairs,
                                  const std::vector<FlowPlan>& flows, const Plan& plan,
                                  std::vector<std::unique_ptr<FlowOp>>* ops) {
    std::vector<Flow> local;
    collectively(group_.comm(), [&] {
      for (size_t i = 0; i < flows.size(); ++i) {
        const FlowPair& fp = flows[i].pair;
        if (!group_.drives(fp.issuer)) continue;
        FlowBuffers b;
        b.src_gpu = fp.src;
        b.dst_gpu = fp.dst;
        b.issuer = fp.issuer;
        b.src_buf = src_.at(fp.issuer, fp.src);
        b.src_buf_bytes = opt_.buffer_bytes;
        b.dst_buf = dst_.at(fp.issuer, fp.dst);
        b.dst_buf_bytes = dst_.bytes();
        b.dst_offset = flows[i].dst_offset;
        b.bytes_per_op = plan.bytes_per_op;
        b.ops = plan.ops;
        b.sms = sms_per_flow(p, pairs, fp.issuer);
        b.deadline = status_.deadline(fp.issuer, opt_.timing.timeout_ms);
        group_.set_device(fp.issuer);
        ops->push_back(mech.prepare(p, b, topo_.gpus[fp.issuer]));
        if (ops->back()->enqueues_per_op() > opt_.timing.max_enqueued)
          throw ArgError("one operation queues " + std::to_string(ops->back()->enqueues_per_op()) +
                         " calls, more than --max-enqueued=" + std::to_string(opt_.timing.max_enqueued));
        FlowOp* op = ops->back().get();
        const int groups = plan.groups;
        cudaStream_t s = streams_.get(fp.issuer, static_cast<int>(i));
        local.push_back(Flow{static_cast<int>(i), fp.issuer, s, op->enqueues_per_op(),
                             [op, s, groups](int k) { op->enqueue(s, k % groups); }});
      }
    });
    return local;
  }

  // Per-operation times of every sample: the step's, and each flow's.
  struct Times {
    std::vector<double> step_ms;
    std::vector<std::vector<double>> flow_ms;
  };

  // Whether the point's samples may be queued one behind another (FlowTimer::samples). Every
  // mechanism's enqueue is a kernel launch or an asynchronous copy call, which nothing on the
  // host has to progress. The next sample's gate (a one-thread spin-wait) starts on a flow's
  // stream once that flow's sample ended, while other flows may still run: a copy engine shares
  // nothing with it, but on SMs it could sit beside a flow that shares the issuing GPU, so a
  // mechanism on SMs takes it only where every flow has an issuing GPU of its own.
  static bool overlap_samples(const Mechanism& mech, const std::vector<FlowPair>& pairs) {
    if (!mech.uses_sms()) return true;
    std::set<int> issuers;
    for (const FlowPair& f : pairs)
      if (!issuers.insert(f.issuer).second) return false;
    return true;
  }

  Times take_samples(benchmark::State& state, FlowTimer& timer, const std::vector<FlowPlan>& flows, const Plan& plan,
                     bool overlap) {
    Times t;
    t.flow_ms.resize(flows.size());
    const auto n = state.max_iterations;
    std::vector<Sample> taken;
    for (auto _ : state) {
      // Every sample in the first iteration, each reported in its own.
      if (taken.empty()) {
        // All but the last at once (the next queued while one runs, where `overlap`): on a copy
        // engine the host's enqueue (a call per message) takes as long as the sample or longer.
        taken = timer.samples(static_cast<int>(n - 1), overlap);
        // The last sample writes into freshly poisoned destinations and is the one verified:
        // operations that wrote nothing after the warm-up cannot pass. The poison waits for
        // the GPUs to go idle, so nothing may be queued behind a closed gate: it runs alone.
        point_cost::within("verify", [&] { poison(flows, plan); });
        taken.push_back(timer.sample());
      }
      const Sample& s = taken[t.step_ms.size()];
      state.SetIterationTime(s.step_ms_per_op / 1e3);
      t.step_ms.push_back(s.step_ms_per_op);
      for (size_t i = 0; i < flows.size(); ++i) t.flow_ms[i].push_back(s.flow_ms_per_op[i]);
    }
    return t;
  }

  // A wrong result is an error, never a number. Each process checks the destinations it
  // owns, for every group the last sample (its `k` operations) wrote (op j used group j % groups).
  void verify(const std::vector<FlowPlan>& flows, const Plan& plan, const FlowTimer& timer, int k) {
    std::set<int> last_groups;
    for (int op = timer.ops_run() - k; op < timer.ops_run(); ++op) last_groups.insert(op % plan.groups);
    collectively(group_.comm(), [&] {
      for (const FlowPlan& f : flows) {
        if (!group_.drives(f.pair.dst)) continue;
        group_.set_device(f.pair.dst);
        for (int gi : last_groups) {
          const uint64_t at = gi * plan.bytes_per_op;
          PatternCheck c = check_pattern(dst_.local(f.pair.dst) + f.dst_offset + at, plan.bytes_per_op,
                                         seed_of(f.pair.src), at);
          if (c.mismatched_words)
            throw std::runtime_error("verification failed: GPU" + std::to_string(f.pair.src) + "->GPU" +
                                     std::to_string(f.pair.dst) + " group " + std::to_string(gi) + ": " +
                                     std::to_string(c.mismatched_words) + " of " +
                                     std::to_string(plan.bytes_per_op / 8) + " words differ; first at byte " +
                                     std::to_string(c.first_bad_byte));
        }
      }
    });
  }

  // Times and bandwidths into the row and the benchmark's counters.
  static void put_bandwidth(benchmark::State& state, Row& row, const Times& t, const std::vector<FlowPair>& pairs,
                            const Plan& plan, const LineRate& lr, int k) {
    const SampleStats st = summarize(t.step_ms);
    const double bytes = static_cast<double>(plan.bytes_per_op);
    // Per direction: all bytes that crossed from one GPU to another, over the step time.
    const double per_direction = bytes * pairs.size() / directions_of(pairs);
    const double gbps = per_direction / (st.median * 1e6);
    double fmin = 0, fmax = 0;
    for (size_t i = 0; i < t.flow_ms.size(); ++i) {
      const double fg = bytes / (summarize(t.flow_ms[i]).median * 1e6);
      fmin = i ? std::min(fmin, fg) : fg;
      fmax = i ? std::max(fmax, fg) : fg;
    }
    put_times(row, st, k);
    row["gbps"] = fmt_num(gbps);
    row["gbps_best"] = fmt_num(per_direction / (st.min * 1e6));
    row["gbps_total"] = fmt_num(bytes * pairs.size() / (st.median * 1e6));
    // What one GPU's links carried: the busiest GPU's bytes out or in (a fan's root carries every
    // flow; behind an NVSwitch a GPU's ports, not a pair's, are the cap).
    std::map<int, double> out_bytes, in_bytes;
    for (const auto& f : pairs)
      if (f.src != f.dst) out_bytes[f.src] += bytes, in_bytes[f.dst] += bytes;
    double busiest = 0;
    for (const auto* m : {&out_bytes, &in_bytes})
      for (const auto& [g, b] : *m) busiest = std::max(busiest, b);
    if (busiest > 0) row["gbps_per_gpu"] = fmt_num(busiest / (st.median * 1e6));
    row["gbps_flow_min"] = fmt_num(fmin);
    row["gbps_flow_max"] = fmt_num(fmax);
    if (lr.gbps > 0) row["pct_of_line_rate"] = fmt_num(100.0 * gbps / lr.gbps, 4);
    state.counters["GB/s"] = gbps;
    if (lr.gbps > 0) state.counters["%line"] = 100.0 * gbps / lr.gbps;
  }

  void measure(benchmark::State& state, const TransferPoint& p, Row& row) {
    const std::vector<FlowPair> pairs = flows_for(p, topo_.count());
    const Mechanism& mech = mechanism(p.mechanism);
    const GpuInfo& g0 = topo_.gpus[pairs[0].issuer];
    skip_without_features(mech, pairs);
    const Plan plan = make_plan(p.total_bytes, p.message_bytes, p.max_ops ? p.max_ops : mech.default_max_ops(),
                                mech.op_granule(p), g0.l2_bytes, opt_.buffer_bytes);
    const LineRate lr = topo_.line_rate(pairs[0].src, pairs[0].dst);
    const std::set<int> used = describe_flows(row, pairs, plan, lr);
    skip_unreachable(pairs);
    const std::vector<FlowPlan> flows = place_flows(pairs);
    std::vector<std::unique_ptr<FlowOp>> ops;
    std::vector<Flow> local =
        point_cost::within("setup", [&] { return prepare_flows(p, mech, pairs, flows, plan, &ops); });
    // No poison here: the verified sample, the last, writes into destinations poisoned just
    // before it (take_samples), which is what keeps a skipped message from passing the check;
    // a poison before the warm-up as well only cost its memset (a GPU's memory per 1 GiB flow).

    FlowTimer timer(group_, std::move(local), static_cast<int>(flows.size()), gate_, status_, opt_.timing);
    row["sm_clock_mhz_start"] = fmt_num(min_clock(used));
    row["sm_clock_mhz_max"] = std::to_string(g0.sm_clock_max_mhz);
    const int k = timer.calibrate();
    const Times times = take_samples(state, timer, flows, plan, overlap_samples(mech, pairs));
    row["sm_clock_mhz_end"] = fmt_num(min_clock(used));
    point_cost::within("verify", [&] { verify(flows, plan, timer, k); });
    row["verified"] = "yes";
    put_bandwidth(state, row, times, pairs, plan, lr, k);
  }

  StudyOptions opt_;
  SymBuf src_, dst_;
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// --list's estimate of a point's wall time (harness/study.h: planned_point_ms): one operation
// moves a flow's bytes at a nominal rate (300 GB/s to a peer, 1.5 TB/s within a GPU), plus
// about 2 us per copy-engine call of one message.
double planned_ms(const TransferPoint& p, const TimingOptions& t) {
  const Mechanism& m = mechanism(p.mechanism);
  const uint64_t per_op = p.max_ops ? std::min(p.total_bytes, p.max_ops * p.message_bytes) : p.total_bytes;
  const double rate_gbps = p.pattern == "local" ? 1500 : 300;
  double op_ms = static_cast<double>(per_op) / (rate_gbps * 1e6);
  if (!m.uses_sms()) op_ms += 0.002 * static_cast<double>(std::min<uint64_t>(per_op / p.message_bytes, m.default_max_ops()));
  return planned_point_ms(t, op_ms, 5);
}

// Each point, and on a GPU that lacks what its mechanism needs, why it would be skipped.
std::vector<ListedPoint> listed(const std::vector<TransferPoint>& points, const GpuInfo& g, const TimingOptions& t) {
  std::vector<ListedPoint> out;
  for (const auto& p : points)
    out.push_back({p.name() + " [" + p.sweep + "]", missing_features(mechanism(p.mechanism).needs(), g), planned_ms(p, t)});
  return out;
}

class TransferPlan : public PointStudyPlan<TransferPoint, TransferStudy> {
 public:
  explicit TransferPlan(StudyMain& study) : study_(study) {
    CLI::App& app = study.cli().app();
    std::string mechs;
    for (const Mechanism* m : mechanisms()) mechs += "\n    " + m->name() + ": " + m->summary();
    app.add_option("--preset", grid_.preset, "grid to run: " + joined(preset_names()))
        ->check(CLI::IsMember(preset_names()))
        ->capture_default_str();
    app.add_option("--mechanisms", grid_.mechanisms, "comma list (or all) of:" + mechs);
    app.add_option("--directions", grid_.directions, "push, pull, mixed (source pushes and destination pulls at once)");
    app.add_option("--patterns", grid_.patterns, "one_way, bidir, local, one_to_all, all_to_one, all_pairs");
    app.add_option("--sizes", grid_.sizes, "message sizes: list or range, e.g. 16:1G or 2K,16K or 16:1M:x4")
        ->check(size_list_validator());
    app.add_option("--total", total_, "bytes per flow per operation (e.g. 1G); default: the preset's")
        ->check(size_validator());
    // CLI11 reads "-1" into the unsigned count as 2^64 - 1: a sign is refused first.
    app.add_option("--max-ops", grid_.max_ops, "messages per operation at most (tiny messages); 0: mechanism default")
        ->check(CLI::Validator(
            [](std::string& v) { return v.find('-') != std::string::npos ? v + ": a count of messages, 0 or more" : std::string(); },
            "COUNT"));
    for (const Knob& k : all_knobs()) {
      std::string help = k.help + (k.unit.empty() ? "" : " [" + k.unit + "]");
      if (!k.allowed.empty()) {
        std::string vals;
        for (int a : k.allowed) vals += (vals.empty() ? "" : ", ") + std::to_string(a);
        help += " (allowed: " + vals + ")";
      }
      app.add_option("--" + k.flag, grid_.knob_lists[k.name], help);
    }
    app.add_option("--gpus", grid_.gpus, "A,B: source and destination (root A for one_to_all/all_to_one); ranks under mpirun");
    app.add_option("--gpu-counts", grid_.gpu_counts, "fan patterns over the first K GPUs, for each K listed (e.g. 2,4,8)");
    app.add_option("--buffer", buffer_, "per-GPU source buffer (and per incoming flow destination)")
        ->check(size_validator())
        ->capture_default_str();
    add_timing_flags(app, opt_.timing, opt_.study_warmup_ms, "warm-up of every GPU");
  }

  void check_flags() override {
    opt_.buffer_bytes = parse_size(buffer_);
    if (!total_.empty()) grid_.total_bytes = parse_size(total_), grid_.total_given = true;
    if (opt_.buffer_bytes == 0 || opt_.buffer_bytes % (16 * 1024))
      throw ArgError("--buffer must be a positive multiple of 16 KiB");
    check_options(grid_);
    // The whole grid against the most capable supported GPU: what it refuses (a knob value,
    // a message beyond any shared memory, more SMs than any GPU has) is refused everywhere,
    // so it is refused here, before the GPU is looked for.
    build_grid(grid_, largest_supported_gpu(), 0);
  }
  // --arch, or no GPU here: a stand-in GPU so the grid can still be inspected.
  std::vector<ListedPoint> plan(const GpuInfo& g) override {
    // --world: the grid of a run of that many GPUs (its node sweeps and pairs); else the
    // GPU count is left open (indices unchecked).
    return listed(build_grid(grid_, g, study_.world_hint()), g, opt_.timing);
  }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    int dropped = 0;
    points_ = build_grid(grid_, group.topology().gpus[0], group.size(), &dropped);
    study_.note(std::to_string(points_.size()) + " points (" + std::to_string(dropped) +
                " tuning combinations that do not fit were left out)");
    return listed(points_, group.topology().gpus[0], opt_.timing);
  }
  void setup(PeerGroup& group, PointResults& results) override {
    if (!nvml::available())
      study_.note("note: NVML unavailable (" + nvml::unavailable_reason() + "): no line rate, no clock readings");
    auto st = std::make_unique<TransferStudy>(group, results, opt_);
    st->setup(points_);
    run_points(std::move(st), opt_.timing.samples);
  }
  void warm_up() override { st_->warm_up(); }
  std::vector<std::string> columns() const override { return transfer_columns(); }

 private:
  StudyMain& study_;
  GridOptions grid_;
  StudyOptions opt_;
  std::string buffer_ = "1G", total_;
};

}  // namespace
}  // namespace pk::transfer

PK_STUDY_MAIN(pk::transfer::TransferPlan, "pkbench_transfer", pk::transfer::kStudyDescription, "transfer.csv")
