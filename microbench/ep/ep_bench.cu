// pkbench_ep: expert parallelism. MoE token dispatch and combine (each token once per rank,
// fanned out into a per-expert layout; partial sums back, weighted by the router) with the
// implementations of ep_list.h against the NCCL baseline a framework would run, and the
// dispatch overlapped with the grouped expert GEMM against dispatch-then-GEMM, over tokens
// per rank, routings and SM counts; one process driving every GPU, one per GPU (mpirun), or
// virtual ranks on one GPU. One Google Benchmark per point, one tidy CSV row per point
// (ep_columns()); every row checked on a final run with fresh inputs (ep_runner.h).
#include <benchmark/benchmark.h>

#include <memory>

#include "microbench/ep/ep_nccl.h"
#include "microbench/ep/ep_runner.h"
#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/study_point.h"

namespace pk::ep {

constexpr const char* kStudyDescription =
    "Expert parallelism: MoE token dispatch and combine (low-latency and high-throughput kernels against NCCL's "
    "all-to-all(-v) with a framework's permutes), and the dispatch overlapped with the grouped expert GEMM (Figure 12).";

namespace {

using EpStudy = ContextRunnerStudy<Context, Runner>;

// What a GPU lacks for a point: the kernels need this build's device code and Hopper's TMA
// (the GEMM: wgmma too).
std::string missing_for(const Point& p, const GpuInfo& g) {
  if (p.op == Op::dispatch_gemm) return missing_features({Feature::device_code, Feature::tma, Feature::wgmma}, g);
  return missing_features({Feature::device_code}, g);
}

class EpPlan : public PointStudyPlan<Point, EpStudy> {
 public:
  explicit EpPlan(StudyMain& study) : study_(study) {
    CLI::App& app = study.cli().app();
    std::string idesc, rdesc;
    for (const ImplInfo& i : impl_infos()) idesc += "\n    " + i.name + " (" + op_name(i.op) + "): " + i.summary;
    for (const auto& r : routing_names()) rdesc += "\n    " + r + ": " + routing_description(parse_routing(r));
    add_preset_option(app, preset_, presets());
    app.add_option("--ops", flags_.ops, "operations (comma list or all): dispatch_combine, dispatch_gemm");
    app.add_option("--impls", flags_.impls, "implementations (comma list or all):" + idesc);
    app.add_option("--routings", flags_.routings, "routings (comma list or all):" + rdesc);
    app.add_option("--tokens", flags_.tokens, "tokens per rank T (list or range, e.g. 128:8192 doubling)");
    app.add_option("--sms", flags_.sms, "SMs of our kernels (the SM sweep; list, range or auto): the dispatch and combine "
                                        "grids, the overlap's communicator blocks");
    app.add_option("--hidden", opt_.shape.hidden, "H, the hidden size (bf16)")->capture_default_str();
    app.add_option("--experts", opt_.shape.experts, "E, experts (E/N per rank)")->capture_default_str();
    app.add_option("--topk", opt_.shape.topk, "TopK experts per token (at most 8)")->capture_default_str();
    app.add_option("--h-expert", opt_.shape.h_expert, "H_expert, the grouped GEMM's output width (H x H_expert per expert)")
        ->capture_default_str();
    app.add_option("--ll-max-tokens", ll_max_tokens_, "the low-latency kernel runs at T up to this")->capture_default_str();
    app.add_option("--zipf-alpha", opt_.router.zipf_alpha, "skew of the zipf routing (popularity ~ 1/(e+1)^alpha)")
        ->check(CLI::Range(0.0, 10.0))
        ->capture_default_str();
    app.add_option("--seed", opt_.router.seed, "the router's seed (every rank draws every rank's routing from it)")
        ->capture_default_str();
    add_timing_flags(app, opt_.timing);
  }

  void check_flags() override {
    points_ = plan_points(preset(preset_), flags_, ll_max_tokens_);
    if (points_.empty()) throw ArgError("--ops/--impls/--tokens: no point left (each implementation serves one operation; ll runs "
                                        "at T <= --ll-max-tokens)");
    check(study_.world_hint() > 0 ? study_.world_hint() : 2);
    if (const std::string mc = keep_nccl_multicast_off(); !mc.empty()) throw ArgError(mc);
  }
  std::vector<ListedPoint> plan(const GpuInfo& g) override {
    study_.note("note: points planned for " + std::to_string(study_.planned_world()) + " ranks (--world)");
    check(study_.planned_world());
    return listed(g);
  }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    if (study_.world_hint() > 0 && study_.world_hint() != group.size())
      throw ArgError("--world=" + std::to_string(study_.world_hint()) + " but the run has " + std::to_string(group.size()) + " ranks");
    check(group.size());
    return listed(group.topology().gpus[0]);
  }
  void setup(PeerGroup& group, PointResults& results) override {
    opt_.shape.ranks = group.size();
    study_.note(std::to_string(points_.size()) + " points; H=" + std::to_string(opt_.shape.hidden) + " E=" +
                std::to_string(opt_.shape.experts) + " TopK=" + std::to_string(opt_.shape.topk) + " on " +
                std::to_string(group.size()) + " ranks (E/N=" + std::to_string(opt_.shape.local_experts()) + ")");
    if (const std::string why = group.library_skip_reason("NCCL"); !why.empty())
      study_.note("note: the NCCL points are skipped: " + why);
    else if (NcclBaseline::version().empty())
      study_.note("note: this build has no NCCL: the NCCL points are skipped");
    run_points(std::make_unique<EpStudy>(group, results, opt_, points_), 1);
  }
  std::vector<std::string> columns() const override { return ep_columns(); }

 private:
  // What needs the rank count: the shape, and every routing of the plan.
  void check(int ranks) {
    EpShape s = opt_.shape;
    s.ranks = ranks;
    s.tokens = 1;
    check_shape(s);
    for (const Point& p : points_) {
      check_routing(p.routing, s);
      if (p.op == Op::dispatch_gemm) check_gemm_shape(s);
    }
  }
  // --list's estimate (harness/study.h: planned_point_ms): a dispatch (and a combine where
  // the op has one) moves T x TopK rows of H bf16 at a nominal 150 GB/s, or a 20 us launch
  // where that is more; a GEMM point adds T x TopK x H x H_expert x 2 flops at 500 TFLOP/s.
  double planned_ms(const Point& p) const {
    const EpShape& s = opt_.shape;
    const double rows = static_cast<double>(p.tokens) * s.topk;
    double op_ms = std::max(0.020, rows * s.token_bytes() / 150e9 * 1e3);
    if (p.op == Op::dispatch_combine) op_ms *= 2;
    if (p.op == Op::dispatch_gemm) op_ms += rows * s.hidden * s.h_expert * 2 / 500e12 * 1e3;
    return planned_point_ms(opt_.timing, op_ms);
  }
  std::vector<ListedPoint> listed(const GpuInfo& g) const {
    std::vector<ListedPoint> out;
    for (const Point& p : points_) out.push_back({p.name(), missing_for(p, g), planned_ms(p)});
    return out;
  }

  StudyMain& study_;
  EpOptions opt_;
  std::string preset_ = "default";
  GridText flags_;
  int ll_max_tokens_ = 512;
};

}  // namespace
}  // namespace pk::ep

PK_STUDY_MAIN(pk::ep::EpPlan, "pkbench_ep", pk::ep::kStudyDescription, "ep.csv")
