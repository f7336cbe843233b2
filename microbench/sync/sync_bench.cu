// pkbench_sync: synchronisation latency inside an SM, between SMs, between GPUs, and the
// host-side costs of the paper's cost model. One Google Benchmark per variant; one tidy CSV
// row per variant (schema: sync_columns()). Runs as one process driving every GPU, or one
// process per GPU under mpirun (--peer-mode=ipc|vmm).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>

#include "../harness/args.h"
#include "../harness/capability.h"
#include "../harness/cuda_check.h"
#include "../harness/nvml.h"
#include "../harness/stats.h"
#include "../harness/study.h"
#include "sync_common.h"

namespace pk::sync {
namespace {

const std::vector<std::string>& level_names() {
  static const std::vector<std::string> v = {"clock", "intra_sm", "inter_sm", "cross_gpu", "host"};
  return v;
}

std::vector<Variant> all_variants(int sm_count, int n_gpus) {
  std::vector<Variant> v;
  add_host_variants(v);
  add_intra_sm_variants(v);
  add_inter_sm_variants(v, sm_count);
  add_cross_gpu_variants(v, n_gpus);
  return v;
}

void run_variant(benchmark::State& state, SyncContext& ctx, const Variant& v, PointResults& results) {
  const int a = ctx.opt().gpu_a, b = ctx.opt().gpu_b;
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

}  // namespace
}  // namespace pk::sync

int main(int argc, char** argv) {
  using namespace pk;
  using namespace pk::sync;
  SyncOptions opt;
  std::string levels, gpus;
  StudyMain study("pkbench_sync", "synchronisation latency: intra-SM, inter-SM, cross-GPU, host costs", "sync.csv");
  CLI::App& app = study.cli().app();
  std::string level_list;
  for (const auto& l : level_names()) level_list += (level_list.empty() ? "" : ", ") + l;
  app.add_option("--levels", levels, "comma list of " + level_list + " (default: all)");
  app.add_option("--iters", opt.iters, "measured round trips / operations per variant (medians of this many)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--warmup-iters", opt.warmup_iters, "operations run first and not recorded")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--timeout-ms", opt.timeout_ms, "limit of every spin-wait: a missing partner ends the variant with an error")
      ->check(CLI::Range(1e-3, 1e6))
      ->capture_default_str();
  app.add_option("--gpus", gpus, "A,B: the GPUs of two-GPU variants (default 0,1; ranks under mpirun)");
  if (int rc = study.begin(&argc, argv); rc >= 0) return rc;
  std::vector<std::string> level_filter;
  std::pair<int, int> pair{0, 1};
  try {
    if (!levels.empty()) level_filter = parse_name_list(levels, level_names(), "level");
    if (!gpus.empty()) pair = parse_gpu_pair(gpus, "--gpus");
  } catch (const ArgError& e) {
    return study.bad_input(e.what());
  }
  opt.gpu_a = pair.first;
  opt.gpu_b = pair.second;
  if (opt.iters < 1000) study.note("note: --iters=" + std::to_string(opt.iters) + ": medians of fewer than 1000 operations");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitBadInput;

  auto select = [&](int sm_count, int n) {
    std::vector<Variant> out;
    for (auto& v : all_variants(sm_count, n))
      if (level_filter.empty() || std::find(level_filter.begin(), level_filter.end(), v.level) != level_filter.end())
        out.push_back(v);
    return out;
  };
  if (study.list_planned()) {  // --arch, or no GPU here: a stand-in GPU, 2 GPUs
    const GpuInfo g = study.planned_gpu();
    study.note("note: variants listed for 2 GPUs");
    // Every variant is a kernel of this build (the host-level ones time launches of one).
    const std::string why = missing_feature(Feature::device_code, g);
    for (const auto& v : select(g.sm_count, 2))
      std::printf("%s%s%s\n", v.name().c_str(), why.empty() ? "" : " skipped: ", why.c_str());
    return 0;
  }
  if (int rc = study.start(); rc >= 0) return rc;
  PeerGroup& group = study.group();
  const int n = group.size();
  if (n > 1) {
    try {
      check_gpu_pair(pair, n, "--gpus");
    } catch (const ArgError& e) {
      return study.bad_input(e.what());
    }
  } else if (pair.first != 0) {
    return study.bad_input("--gpus: GPU " + std::to_string(pair.first) + " does not exist (1 GPU in this run)");
  }
  const std::vector<Variant> variants = select(group.topology().gpus[opt.gpu_a].sm_count, n);
  if (study.list_only()) {
    if (study.is_root())
      for (const auto& v : variants) std::printf("%s\n", v.name().c_str());
    return 0;
  }
  PointResults results;
  std::unique_ptr<SyncContext> ctx;
  try {
    ctx = std::make_unique<SyncContext>(group, opt);
  } catch (const ArgError& e) {
    return study.bad_input(e.what());
  } catch (const std::exception& e) {
    study.fatal(std::string("setup: ") + e.what());
  }
  for (const auto& v : variants)
    register_point(v.name(), 1, [&ctx, v, &results](benchmark::State& s) { run_variant(s, *ctx, v, results); });
  const int rc = study.run(sync_columns(), results);
  ctx.reset();
  return rc;
}
