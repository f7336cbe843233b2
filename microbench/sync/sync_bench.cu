// pkbench_sync: synchronisation latency inside an SM, between SMs, between GPUs, and the
// host-side costs of the paper's cost model. One Google Benchmark per variant; one tidy CSV
// row per variant (schema: sync_columns()). Runs as one process driving every GPU, or one
// process per GPU under mpirun (--peer-mode=ipc|vmm).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/nvml.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/study.h"
#include "microbench/sync/sync_common.h"

namespace pk::sync {

// What --help says the binary measures.
constexpr const char* kStudyDescription =
    "synchronisation latency: intra-SM, inter-SM, cross-GPU, host costs";

namespace {

const std::vector<std::string>& level_names() {
  static const std::vector<std::string> v = {"clock", "intra_sm", "inter_sm", "cross_gpu", "host"};
  return v;
}

void run_variant(benchmark::State& state, SyncContext& ctx, const Variant& v, PointResults& results) {
  const int a = v.pair_a >= 0 ? v.pair_a : ctx.opt().gpu_a, b = v.pair_b >= 0 ? v.pair_b : ctx.opt().gpu_b;
  Row row{{"study", "sync"},          {"level", v.level},
          {"primitive", v.primitive}, {"scope", v.scope},
          {"semantics", v.semantics}, {"placement", v.placement},
          {"participants", std::to_string(v.participants)},
          {"gpu_a", std::to_string(a)}};
  if (v.gpus_needed > 1) row["gpu_b"] = std::to_string(b);
  measure_point(state, row, [&] {
    if (v.gpus_needed > ctx.topo().count())
      throw SkipPoint("needs " + std::to_string(v.gpus_needed) + " GPUs, this run has " +
                      std::to_string(ctx.topo().count()));
    if (v.gpus_needed > 1 && !(ctx.topo().can_access(a, b) && ctx.topo().can_access(b, a)))
      throw SkipPoint("no peer access between GPU" + std::to_string(a) + " and GPU" + std::to_string(b));
    LatencyResult r;
    for (auto _ : state) {
      r = v.gpus_needed == 1 ? ctx.solo(a, [&] { return v.run(ctx); }) : v.run(ctx);
      if (r.ns.empty()) throw std::runtime_error("no samples");
      state.SetIterationTime(summarize(r.ns).median * 1e-9);
      point_cost::timed(timed_ms(r));
    }
    for (auto& [k, val] : sync_row(v, r)) row[k] = val;
    double mhz = 0;
    ctx.on(a, [&] {
      if (auto m = nvml::sm_clock_mhz(ctx.topo().gpus[a].pci_bus_id)) mhz = *m;
    });
    mhz = ctx.group().comm().max(mhz);
    if (mhz > 0) row["sm_clock_mhz"] = fmt_num(mhz);
    state.counters["one_way_ns"] = std::stod(row["one_way_ns"]);
  });
  results.put(v.name(), row);
}

class SyncPlan : public StudyPlan {
 public:
  explicit SyncPlan(StudyMain& study) : study_(study) {
    CLI::App& app = study.cli().app();
    std::string level_list;
    for (const auto& l : level_names()) level_list += (level_list.empty() ? "" : ", ") + l;
    app.add_option("--levels", levels_, "comma list of " + level_list + " (default: all)");
    app.add_option("--iters", opt_.iters, "measured round trips / operations per variant (medians of this many)")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--warmup-iters", opt_.warmup_iters, "operations run first and not recorded")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str();
    app.add_option("--timeout-ms", opt_.timeout_ms, "limit of every spin-wait: a missing partner ends the variant with an error")
        ->check(CLI::Range(1e-3, 1e6))
        ->capture_default_str();
    app.add_option("--gpus", gpus_, "A,B: the GPUs of two-GPU variants (default 0,1; ranks under mpirun)");
  }

  void check_flags() override {
    if (!levels_.empty()) level_filter_ = parse_name_list(levels_, level_names(), "level");
    if (!gpus_.empty()) pair_ = parse_gpu_pair(gpus_, "--gpus");
    opt_.gpu_a = pair_.first;
    opt_.gpu_b = pair_.second;
    if (opt_.iters < 1000) study_.note("note: --iters=" + std::to_string(opt_.iters) + ": medians of fewer than 1000 operations");
  }
  std::vector<ListedPoint> plan(const GpuInfo& g) override {  // a stand-in GPU, --world GPUs (2)
    study_.note("note: variants listed for " + std::to_string(study_.planned_world()) + " GPUs");
    // Every variant is a kernel of this build (the host-level ones time launches of one).
    const std::string why = missing_feature(Feature::device_code, g);
    std::vector<ListedPoint> out;
    for (const auto& v : select(g.sm_count, study_.planned_world())) out.push_back({v.name(), why, planned_ms()});
    return out;
  }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    const int n = group.size();
    if (n > 1) check_gpu_pair(pair_, n, "--gpus");
    else if (pair_.first != 0)
      throw ArgError("--gpus: GPU " + std::to_string(pair_.first) + " does not exist (1 GPU in this run)");
    variants_ = select(group.topology().gpus[opt_.gpu_a].sm_count, n);
    std::vector<ListedPoint> out;
    for (const auto& v : variants_) out.push_back({v.name(), "", planned_ms()});
    return out;
  }
  void setup(PeerGroup& group, PointResults& results) override {
    ctx_ = std::make_unique<SyncContext>(group, opt_);
    for (const auto& v : variants_)
      register_point(v.name(), 1, [this, v, &results](benchmark::State& s) { run_variant(s, *ctx_, v, results); });
  }
  std::vector<std::string> columns() const override { return sync_columns(); }
  void finish() override { ctx_.reset(); }

 private:
  std::vector<Variant> select(int sm_count, int n) const {
    std::vector<Variant> out;
    for (auto& v : all_variants({sm_count, n}))
      if (level_filter_.empty() || std::find(level_filter_.begin(), level_filter_.end(), v.level) != level_filter_.end())
        out.push_back(v);
    return out;
  }

  // --list's estimate of a variant: its operations at about 5 us each (a cross-GPU round trip
  // is ~2-3 us, a launch-timed host variant more) and the harness's own cost.
  double planned_ms() const { return (opt_.iters + opt_.warmup_iters) * 0.005 + kPlannedHarnessMs; }

  StudyMain& study_;
  SyncOptions opt_;
  std::string levels_, gpus_;
  std::vector<std::string> level_filter_;
  std::pair<int, int> pair_{0, 1};
  std::vector<Variant> variants_;
  std::unique_ptr<SyncContext> ctx_;
};

}  // namespace
}  // namespace pk::sync

PK_STUDY_MAIN(pk::sync::SyncPlan, "pkbench_sync", pk::sync::kStudyDescription, "sync.csv")
