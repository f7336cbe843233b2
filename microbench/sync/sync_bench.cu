// pkbench_sync: synchronisation latency inside an SM, between SMs, between GPUs, the cost
// of library-style peer access, and the host-side costs of the paper's cost model. One
// Google Benchmark per variant; one tidy CSV row per variant (schema: sync_columns()).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>

#include "../harness/args.h"
#include "../harness/cuda_check.h"
#include "../harness/gbench_csv.h"
#include "../harness/metadata.h"
#include "../harness/nvml.h"
#include "../harness/stats.h"
#include "sync_common.h"

namespace pk::sync {
namespace {

const std::vector<std::string>& level_names() {
  static const std::vector<std::string> v = {"clock", "intra_sm", "inter_sm", "cross_gpu", "library", "host"};
  return v;
}

std::vector<Variant> all_variants(int sm_count, int n_gpus) {
  std::vector<Variant> v;
  add_host_variants(v);
  add_intra_sm_variants(v);
  add_inter_sm_variants(v, sm_count);
  add_cross_gpu_variants(v, n_gpus);
  add_library_variants(v);
  return v;
}

void run_variant(benchmark::State& state, SyncContext& ctx, const Variant& v, PointResults& results) {
  Row row{{"study", "sync"},          {"level", v.level},
          {"primitive", v.primitive}, {"scope", v.scope},
          {"semantics", v.semantics}, {"placement", v.placement},
          {"participants", std::to_string(v.participants)},
          {"gpu_a", std::to_string(ctx.opt().gpu_a)}};
  if (v.gpus_needed > 1) row["gpu_b"] = std::to_string(ctx.opt().gpu_b);
  measure_point(state, row, [&] {
    if (v.gpus_needed > ctx.topo().count())
      throw SkipPoint("needs " + std::to_string(v.gpus_needed) + " GPUs, this machine has " +
                      std::to_string(ctx.topo().count()));
    if (v.gpus_needed > 1 && !ctx.topo().can_access(ctx.opt().gpu_a, ctx.opt().gpu_b))
      throw SkipPoint("no peer access between the GPUs");
    LatencyResult r;
    for (auto _ : state) {
      r = v.run(ctx);
      if (r.ns.empty()) throw std::runtime_error("no samples");
      state.SetIterationTime(summarize(r.ns).median * 1e-9);
    }
    for (auto& [k, val] : sync_row(v, r)) row[k] = val;
    if (auto mhz = nvml::sm_clock_mhz(ctx.topo().gpus[ctx.opt().gpu_a].pci_bus_id))
      row["sm_clock_mhz"] = std::to_string(*mhz);
    state.counters["one_way_ns"] = std::stod(row["one_way_ns"]);
  });
  results.put(v.name(), row);
}

}  // namespace
}  // namespace pk::sync

int main(int argc, char** argv) {
  pk::init_cuda_environment();
  using namespace pk;
  using namespace pk::sync;
  SyncOptions opt;
  std::string csv_path = "sync.csv", levels, gpus;
  bool list_only = false;
  Flags flags;
  flags.add("levels", &levels, "comma list of clock, intra_sm, inter_sm, cross_gpu, library, host (default: all)");
  flags.add("iters", &opt.iters, "measured round trips / operations per variant (medians of this many)");
  flags.add("warmup-iters", &opt.warmup_iters, "operations run first and not recorded");
  flags.add("timeout-ms", &opt.timeout_ms, "limit of every spin-wait: a missing partner ends the variant with an error");
  flags.add("gpus", &gpus, "A,B: the GPUs of two-GPU variants (default 0,1)");
  flags.add("csv", &csv_path, "tidy CSV output (written atomically after every variant)");
  flags.add_bool("list", &list_only, "print the variants and exit");
  std::vector<std::string> level_filter;
  try {
    if (flags.parse(&argc, argv)) {
      std::printf("%s", flags.usage("pkbench_sync").c_str());
      return 0;
    }
    if (!levels.empty()) level_filter = parse_name_list(levels, level_names(), "level");
    if (!gpus.empty()) {
      auto g = parse_int_list(gpus, 0);
      if (g.size() != 2) throw ArgError("--gpus takes two different GPU indices: A,B");
      opt.gpu_a = g[0];
      opt.gpu_b = g[1];
    }
    if (opt.iters < 1000) std::fprintf(stderr, "note: --iters=%d: medians of fewer than 1000 operations\n", opt.iters);
    if (opt.timeout_ms <= 0) throw ArgError("--timeout-ms must be > 0");
    if (opt.warmup_iters < 0) throw ArgError("--warmup-iters must be >= 0");
  } catch (const ArgError& e) {
    std::fprintf(stderr, "pkbench_sync: error: %s\n", e.what());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  Topology topo = discover_topology();
  if (topo.count() == 0) {
    std::fprintf(stderr, "pkbench_sync: no GPU to measure (%s)\n", topo.no_gpu_reason.c_str());
    return 3;
  }
  if (opt.gpu_a >= topo.count() || (topo.count() > 1 && opt.gpu_b >= topo.count())) {
    std::fprintf(stderr, "pkbench_sync: error: --gpus names a GPU that does not exist (%d visible)\n", topo.count());
    return 2;
  }
  std::fprintf(stderr, "%s", topo.describe().c_str());
  std::vector<Variant> variants;
  for (auto& v : all_variants(topo.gpus[opt.gpu_a].sm_count, topo.count()))
    if (level_filter.empty() || std::find(level_filter.begin(), level_filter.end(), v.level) != level_filter.end())
      variants.push_back(v);
  if (list_only) {
    for (const auto& v : variants) std::printf("%s\n", v.name().c_str());
    return 0;
  }
  try {
    auto group = make_single_process_group(topo);
    SyncContext ctx(topo, *group, opt);
    PointResults results;
    for (const auto& v : variants)
      benchmark::RegisterBenchmark(v.name().c_str(),
                                   [&ctx, v, &results](benchmark::State& s) { run_variant(s, ctx, v, results); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    TidyCsv csv(csv_path, sync_columns());
    csv.flush();
    TidyCsvReporter reporter(csv, results, metadata_row(topo, group->mode()));
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    std::fprintf(stderr, "pkbench_sync: %d rows (%d errors, %d skipped) -> %s\n", reporter.rows(), reporter.errors(),
                 reporter.skipped(), csv_path.c_str());
    return reporter.errors() ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_sync: fatal: %s\n", e.what());
    return 1;
  }
}
