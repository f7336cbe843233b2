// pkbench_primitives: real library primitives (NVSHMEM, NCCL's device API) beside PK-style
// access and the NVSHMEM-shaped emulation, one row per operation x style x scope/size, with
// the memory ordering of every signal stated. See README.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/study.h"
#include "microbench/primitives/primitives.h"

namespace pk::prim {

// What --help says the binary measures.
constexpr const char* kStudyDescription =
    "Element-wise put, get, signals, quiet/fence, barriers and bulk puts in four styles: PK "
    "(PeerTable in registers), NVSHMEM (one process per GPU), NCCL's device API, and the "
    "NVSHMEM-shaped emulation";

namespace {

class PrimitivesPlan : public StudyPlan {
 public:
  explicit PrimitivesPlan(StudyMain& study) : study_(study) {
    auto& app = study.cli().app();
    app.add_option("--ops", ops_, "operations: all, or a list of put,get,signal,put_signal,store,quiet,fence,barrier,bulk_put")
        ->capture_default_str();
    app.add_option("--styles", styles_, "styles: all, or a list of pk,nvshmem,nccl_dev,emulation")->capture_default_str();
    app.add_option("--iters", o_.iters, "timed operations per latency point")->check(CLI::Range(1, 100000))->capture_default_str();
    app.add_option("--warmup", o_.warmup, "untimed operations first, in the same launch")->check(CLI::Range(0, 10000))->capture_default_str();
    app.add_option("--timeout-ms", o_.timeout_ms, "every spin-wait gives up after this")->check(CLI::Range(1.0, 60000.0))->capture_default_str();
    app.add_option("--latency-samples", o_.latency_samples, "element-put latency: samples of 64 calls")
        ->check(CLI::Range(1, 4096))->capture_default_str();
    app.add_option("--bw-samples", o_.bw_samples, "bandwidth: timed samples per point")->check(CLI::Range(1, 1000))->capture_default_str();
    app.add_option("--bulk-sizes", bulk_, "bulk put message sizes (16-B multiples dividing 64 MiB)")
        ->check(size_list_validator())->capture_default_str();
  }

  void check_flags() override {
    const auto op_list = parse_name_list(ops_, op_names(), "--ops");
    const auto style_list = parse_name_list(styles_, style_names(), "--styles");
    o_.bulk_sizes = parse_size_list(bulk_);
    for (uint64_t m : o_.bulk_sizes)
      if (m < 16 || m % 16 || o_.bulk_pass_bytes % m)
        throw ArgError("--bulk-sizes: " + std::to_string(m) + " B is not a multiple of 16 B dividing 64 MiB");
    auto wanted = [](const std::vector<std::string>& v, const std::string& x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    for (const Spec& s : catalogue(o_))
      if (wanted(op_list, s.op) && wanted(style_list, s.style)) specs_.push_back(s);
  }
  // With --arch (or no GPU here): what a GPU of that architecture would skip; every
  // primitive is timed by a kernel of this build.
  std::vector<ListedPoint> plan(const GpuInfo& g) override { return listed(missing_feature(Feature::device_code, g)); }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    if (group.size() < 2) study_.note("pkbench_primitives: one GPU: the cross-GPU rows are skipped (local references only)");
    return listed("");
  }
  void setup(PeerGroup& group, PointResults& results) override {
    study_.note(nccl_version_text() + "; " + nvshmem_version_text());
    collectively(study_.comm(), [&] { ctx_ = std::make_unique<Context>(group, o_); });
    for (const Spec& s : specs_) {
      const std::string name = point_name(s);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [this, &results, s, name](benchmark::State& state) {
                                     for (auto _ : state) {
                                       Row row = spec_row(s);
                                       measure_point(state, row, [&] {
                                         for (const auto& [k, v] : run_spec(*ctx_, s)) row[k] = v;
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
  }
  std::vector<std::string> columns() const override {
    std::vector<std::string> columns = study_columns();
    for (const auto& m : metadata_columns()) columns.push_back(m);
    return columns;
  }
  void finish() override {
    release_libraries();
    ctx_.reset();
  }

 private:
  // --list's estimate of a point: its operations at about 5 us each (a round trip through a
  // peer is 2-3 us; bandwidth points are a few samples of a few ms) and the harness's own cost.
  std::vector<ListedPoint> listed(const std::string& why) const {
    std::vector<ListedPoint> out;
    const double ms = (o_.iters + o_.warmup) * 0.005 + kPlannedHarnessMs;
    for (const Spec& s : specs_) out.push_back({point_name(s), why, ms});
    return out;
  }

  StudyMain& study_;
  Options o_;
  std::string ops_ = "all", styles_ = "all", bulk_ = "1K,4K,16K,64K,256K,1M";
  std::vector<Spec> specs_;
  std::unique_ptr<Context> ctx_;
};

}  // namespace
}  // namespace pk::prim

PK_STUDY_MAIN(pk::prim::PrimitivesPlan, "pkbench_primitives", pk::prim::kStudyDescription, "primitives.csv")
