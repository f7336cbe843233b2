// pkbench_launch: what launching a kernel costs, the floor under every small collective and every
// chain of unfused kernels. One operation is N launches of a kernel that only counts its blocks,
// back to back on one stream, with programmatic dependent launch, or as one CUDA graph (with and
// without programmatic edges) (launch_list.h); over N and the grid. The GPU's time per kernel
// with the launches queued ahead behind the start gate, and the host's time in the launch calls,
// measured apart; every GPU of the run at once, each on its own stream (one process driving every
// GPU, one per GPU under mpirun, or virtual ranks sharing one GPU's SMs). One Google Benchmark per
// point, one tidy CSV row per point (launch_columns()); each row checked on a final operation
// whose counters must grow by exactly kernels x blocks.
#include <benchmark/benchmark.h>

#include <memory>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/study.h"
#include "microbench/launch/launch.h"

namespace pk::launch {

constexpr const char* kStudyDescription =
    "Kernel launch cost: N launches of a block-counting kernel per operation, back to back, with programmatic dependent "
    "launch, or as one CUDA graph; the GPU's time per kernel and the host's time per launch call.";

namespace {

class LaunchPlan : public PointStudyPlan<Point, ContextRunnerStudy<Context, Runner>> {
 public:
  explicit LaunchPlan(StudyMain& study) : study_(study) {
    CLI::App& app = study.cli().app();
    // The grid: a preset, each of its fields replaced by a flag given.
    add_preset_option(app, preset_, presets());
    const std::string variants = help_lines(variant_infos(), [](const VariantInfo& v) { return v.summary; });
    app.add_option("--variants", flags_.variants, "how the kernels are launched (comma list or all):" + variants);
    const std::string most = std::to_string(kMaxKernels), widest = std::to_string(kMaxBlocks);
    app.add_option("--kernels", flags_.kernels, "kernels per operation (list or range, 1 to " + most + ")");
    app.add_option("--blocks", flags_.blocks, "blocks per kernel (list or range, 1 to " + widest + ", or sms: one per SM of the rank)");
    app.add_option("--seed", opt_.seed, "the counters' start values")->capture_default_str();
    add_timing_flags(app, opt_.timing);
  }

  void check_flags() override {
    points_ = plan_points(preset(preset_), flags_);
    // Every launch of an operation waits behind one start gate, which holds at most --max-enqueued calls.
    for (const Point& p : points_)
      if (calls_per_op(p) > opt_.timing.max_enqueued)
        throw ArgError("--kernels: " + std::to_string(p.kernels) + " launches per operation (" + p.variant +
                       ") queue more than --max-enqueued=" + std::to_string(opt_.timing.max_enqueued) +
                       " calls behind the start gate");
    if (const std::string mc = keep_nccl_multicast_off(); !mc.empty()) throw ArgError(mc);
  }
  std::vector<ListedPoint> plan(const GpuInfo& g) override { return listed(g); }
  std::vector<ListedPoint> points(PeerGroup& group) override { return listed(group.topology().gpus[0]); }
  void setup(PeerGroup& group, PointResults& results) override {
    study_.note(std::to_string(points_.size()) + " points on " + std::to_string(group.size()) + " GPU(s), " +
                peer_mode_name(group.mode()));
    run_points(std::make_unique<ContextRunnerStudy<Context, Runner>>(group, results, opt_, points_), 1);
  }
  std::vector<std::string> columns() const override { return launch_columns(); }

 private:
  std::vector<ListedPoint> listed(const GpuInfo& g) const {
    std::vector<ListedPoint> out;
    for (const Point& p : points_) out.push_back({p.name(), missing_for(p, g), planned_point_ms(opt_.timing, planned_op_ms(p))});
    return out;
  }

  StudyMain& study_;
  LaunchOptions opt_;
  std::string preset_ = "default";
  GridText flags_;
};

}  // namespace
}  // namespace pk::launch

PK_STUDY_MAIN(pk::launch::LaunchPlan, "pkbench_launch", pk::launch::kStudyDescription, "launch.csv")
