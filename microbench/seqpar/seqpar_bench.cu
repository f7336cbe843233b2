// pkbench_seqpar: sequence parallelism's ring-attention KV pass. N steps; in each, every rank
// computes on the K/V block it holds (the stand-in: attention's two products as this suite's
// GEMM, kernels/seqpar/ring_kv.cuh) while the next block arrives from its ring neighbour, with
// the schedules of seqpar_list.h (sequential; NCCL send/recv on a side stream, xDiT's design;
// inter-SM with the communication SM count a knob; intra-SM reading the peer's block directly)
// and the compute and the transfer alone, over S per rank and heads; one process driving every
// GPU, one per GPU (mpirun), or virtual ranks on one GPU; every GPU count 2..N (--gpu-counts).
// One Google Benchmark per point, one tidy CSV row per point (seqpar_columns()); every row
// checked on a final pass with fresh inputs (ring.h). Ulysses' all-to-all and the column
// collectives are pkbench_collectives' ulysses presets (README.md).
#include <benchmark/benchmark.h>

#include <memory>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/study_point.h"
#include "microbench/seqpar/ring.h"

namespace pk::seqpar {

constexpr const char* kStudyDescription =
    "Sequence parallelism: the ring-attention KV pass (compute on the block held while the next arrives) with sequential, "
    "NCCL side-stream (xDiT), inter-SM and intra-SM schedules (Figure 10); Ulysses' collectives: pkbench_collectives "
    "--preset=ulysses.";

namespace {

using RingStudy = ContextRunnerStudy<Context, Runner>;

// The stand-in is the Hopper GEMM (wgmma, TMA); the pull needs this build's device code.
std::string missing_for(const Point& p, const GpuInfo& g) {
  if (impl_info(p.impl).computes) return missing_features({Feature::device_code, Feature::tma, Feature::wgmma}, g);
  return missing_features({Feature::device_code}, g);
}

class SeqparPlan : public StudyPlan {
 public:
  explicit SeqparPlan(StudyMain& study) : study_(study) {
    CLI::App& app = study.cli().app();
    add_preset_option(app, preset_, presets());
    app.add_option("--impls", flags_.impls, "schedules (comma list or all):" +
                                                help_lines(impl_infos(), [](const ImplInfo& i) { return i.summary; }));
    app.add_option("--seqs", flags_.seqs, "S per rank, tokens (list or range, multiples of 256, e.g. 256:16384 doubling)");
    app.add_option("--heads", flags_.heads, "H, heads (list; every rank holds every head)");
    app.add_option("--sms", flags_.sms, "communication SMs of inter_sm (the SM split; list, range or auto)");
    app.add_option("--batch", opt_.shape.batch, "B")->capture_default_str();
    app.add_option("--head-dim", opt_.shape.head_dim, "D (a multiple of 64 up to 256)")->capture_default_str();
    app.add_option("--seed", opt_.data_seed, "the inputs' seed")->capture_default_str();
    add_timing_flags(app, opt_.timing);
    study.enable_gpu_counts();
  }

  void check_flags() override {
    points_ = plan_points(preset(preset_), flags_);
    check(study_.world_hint() > 0 ? study_.world_hint() : 2);
    if (const std::string mc = keep_nccl_multicast_off(); !mc.empty()) throw ArgError(mc);
  }
  std::vector<ListedPoint> plan(const GpuInfo& g) override {
    check(study_.planned_world());
    return listed(g, study_.planned_world());
  }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    check(group.size());
    return listed(group.topology().gpus[0], group.size());
  }
  void setup(PeerGroup& group, PointResults& results) override {
    study_.note(std::to_string(points_.size()) + " points; B=" + std::to_string(opt_.shape.batch) +
                " D=" + std::to_string(opt_.shape.head_dim) + " on " + std::to_string(group.size()) + " ranks");
    if (const std::string why = group.library_skip_reason("NCCL"); !why.empty())
      study_.note("note: the NCCL points are skipped: " + why);
    st_ = std::make_unique<RingStudy>(group, results, opt_, points_);
    for (const auto& p : points_)
      register_point(p.name(), 1, [this, p](benchmark::State& s) { st_->run_point(s, p); });
  }
  std::vector<std::string> columns() const override { return seqpar_columns(); }
  void finish() override { st_.reset(); }

 private:
  void check(int ranks) {
    for (const Point& p : points_) {
      RingShape s = opt_.shape;
      s.ranks = ranks;
      s.seq = p.seq;
      s.heads = p.heads;
      check_shape(s);
    }
  }
  std::vector<ListedPoint> listed(const GpuInfo& g, int ranks) const {
    std::vector<ListedPoint> out;
    for (const Point& p : points_) {
      RingShape s = opt_.shape;
      s.ranks = ranks;
      s.seq = p.seq;
      s.heads = p.heads;
      out.push_back({p.name(), missing_for(p, g), planned_point_ms(opt_.timing, planned_pass_ms(s, p.impl))});
    }
    return out;
  }

  StudyMain& study_;
  RingOptions opt_;
  std::string preset_ = "default";
  GridText flags_;
  std::vector<Point> points_;
  std::unique_ptr<RingStudy> st_;
};

}  // namespace
}  // namespace pk::seqpar

PK_STUDY_MAIN(pk::seqpar::SeqparPlan, "pkbench_seqpar", pk::seqpar::kStudyDescription, "seqpar.csv")
