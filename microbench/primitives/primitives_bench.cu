// pkbench_primitives: real library primitives (NVSHMEM, NCCL's device API) beside PK-style
// access and the NVSHMEM-shaped emulation, one row per operation x style x scope/size, with
// the memory ordering of every signal stated. See NOTES.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>

#include "../harness/args.h"
#include "../harness/capability.h"
#include "../harness/cuda_check.h"
#include "../harness/gbench_csv.h"
#include "../harness/metadata.h"
#include "../harness/study.h"
#include "primitives.h"

int main(int argc, char** argv) {
  using namespace pk::prim;
  pk::StudyMain study("pkbench_primitives",
                      "Element-wise put, get, signals, quiet/fence, barriers and bulk puts in four styles: PK "
                      "(PeerTable in registers), NVSHMEM (one process per GPU), NCCL's device API, and the "
                      "NVSHMEM-shaped emulation",
                      "primitives.csv");
  auto& app = study.cli().app();
  Options o;
  std::string ops = "all", styles = "all", bulk = "1K,4K,16K,64K,256K,1M";
  app.add_option("--ops", ops, "operations: all, or a list of put,get,signal,put_signal,store,quiet,fence,barrier,bulk_put")
      ->capture_default_str();
  app.add_option("--styles", styles, "styles: all, or a list of pk,nvshmem,nccl_dev,emulation")->capture_default_str();
  app.add_option("--iters", o.iters, "timed operations per latency point")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed operations first, in the same launch")->check(CLI::Range(0, 10000))->capture_default_str();
  app.add_option("--timeout-ms", o.timeout_ms, "every spin-wait gives up after this")->check(CLI::Range(1.0, 60000.0))->capture_default_str();
  app.add_option("--latency-samples", o.latency_samples, "element-put latency: samples of 64 calls")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  app.add_option("--bw-samples", o.bw_samples, "bandwidth: timed samples per point")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--bulk-sizes", bulk, "bulk put message sizes (16-B multiples dividing 64 MiB)")
      ->check(pk::size_list_validator())->capture_default_str();
  if (int rc = study.begin(&argc, argv); rc >= 0) return rc;

  std::vector<std::string> op_list, style_list;
  try {
    op_list = pk::parse_name_list(ops, op_names(), "--ops");
    style_list = pk::parse_name_list(styles, style_names(), "--styles");
    o.bulk_sizes = pk::parse_size_list(bulk);
    for (uint64_t m : o.bulk_sizes)
      if (m < 16 || m % 16 || o.bulk_pass_bytes % m)
        throw pk::ArgError("--bulk-sizes: " + std::to_string(m) + " B is not a multiple of 16 B dividing 64 MiB");
  } catch (const pk::ArgError& e) {
    return study.bad_input(e.what());
  }
  auto wanted = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<Spec> specs;
  for (const Spec& s : catalogue(o))
    if (wanted(op_list, s.op) && wanted(style_list, s.style)) specs.push_back(s);
  if (study.list_only()) {
    // With --arch (or no GPU here): what a GPU of that architecture would skip; every
    // primitive is timed by a kernel of this build.
    const std::string why = study.list_planned() ? pk::missing_feature(pk::Feature::device_code, study.planned_gpu()) : "";
    if (study.is_root())
      for (const Spec& s : specs)
        std::printf("%s%s%s\n", point_name(s).c_str(), why.empty() ? "" : " skipped: ", why.c_str());
    return 0;
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  if (int rc = study.start(); rc >= 0) return rc;
  if (study.group().size() < 2)
    study.note("pkbench_primitives: one GPU: the cross-GPU rows are skipped (local references only)");
  study.note(nccl_version_text() + "; " + nvshmem_version_text());

  std::unique_ptr<Context> ctx;
  try {
    pk::collectively(study.comm(), [&] { ctx = std::make_unique<Context>(study.group(), o); });
  } catch (const pk::ArgError& e) {
    return study.bad_input(e.what());
  } catch (const std::exception& e) {
    study.fatal(std::string("setting up: ") + e.what());
  }

  pk::PointResults results;
  for (const Spec& s : specs) {
    const std::string name = point_name(s);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [&, s, name](benchmark::State& state) {
                                   for (auto _ : state) {
                                     pk::Row row = spec_row(s);
                                     pk::measure_point(state, row, [&] {
                                       for (const auto& [k, v] : run_spec(*ctx, s)) row[k] = v;
                                     });
                                     const double v = row.count("value") && !row["value"].empty()
                                                          ? std::stod(row["value"]) : 1.0;
                                     state.SetIterationTime(std::max(1e-9, v * 1e-9));
                                     results.put(name, row);
                                   }
                                 })
        ->UseManualTime()
        ->Iterations(1);
  }
  std::vector<std::string> columns = study_columns();
  for (const auto& m : pk::metadata_columns()) columns.push_back(m);
  const int rc = study.run(columns, results);
  release_libraries();
  ctx.reset();
  return rc;
}
