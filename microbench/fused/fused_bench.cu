// pkbench_fused: fused compute + communication kernels (GEMM+RS, AG+GEMM, GEMM+AR) against
// their baselines, per operator, local shape, schedule and knob (communication SMs, chunks),
// in one process driving every GPU or one process per GPU (mpirun, --peer-mode=ipc|vmm).
// One Google Benchmark per point; one tidy CSV row per point (schema: fused_columns()). After
// timing, one more run of the timed operation on fresh inputs (a new seed) into re-poisoned
// outputs is checked against a cuBLASLt reference (itself checked against fp64 host dot
// products); a wrong result is an error row. With --tuning-table, a `tuned` point after each
// operator and shape runs what the table answers through pkbench/tuning.h (fused_tuned.h).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <memory>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/nvml.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/study_point.h"
#include "microbench/fused/fused_context.h"
#include "microbench/fused/fused_tuned.h"

namespace pk::fused {

// What --help says the binary measures.
constexpr const char* kStudyDescription =
    "Fused GEMM + communication kernels (GEMM+RS, AG+GEMM, GEMM+AR): intra-SM vs inter-SM overlap, the SM split, "
    "and the baselines (cuBLASLt + NCCL, this suite's GEMM + collective, copy engine).";

namespace {

// A preset fills what the command line leaves out.
struct Preset {
  std::string name, help, ops, schedules, sizes, shapes;
  std::map<std::string, std::string> knobs;  // knob name -> list (absent: each schedule's default)
  // Rounds of a GPU-count sweep on fewer GPUs than the run's (--gpu-counts): these sizes and
  // schedules instead ("" keeps the preset's): the scaling figure at one N, the whole grid at
  // the run's.
  std::string partial_sizes, partial_schedules;
};

const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = {
      {"default",
       "every operator and schedule at the paper's N = 4096, 8192, 16384 (Figures 7-9), comm SMs 4, 8, 16, 24, 32; "
       "at fewer GPUs than the run's (--gpu-counts) N = 8192 only",
       "all", "all", "4096,8192,16384", "", {}, "8192"},
      {"main",
       "what scripts/run.sh measures: every operator and schedule at N = 8192 and 16384 (Figures 7-9), comm SMs 16 "
       "and 32, 4 chunks; at fewer GPUs than the run's (--gpu-counts) N = 8192 with the fused schedules beside the "
       "GEMM, the collective and cuBLAS + NCCL (the scaling figure)",
       "all", "all", "8192,16384", "", {{"comm_sms", "16,32"}, {"chunks", "4"}}, "8192",
       "gemm_pk,coll_nccl,cublas_nccl,intra_sm,inter_sm"},
      {"one_gpu", "scripts/run.sh's one-GPU profile (virtual ranks): the default preset at N = 4096 alone", "all", "all",
       "4096", "", {}},
      {"smoke", "every operator and schedule once at N = 2048: a quick check that everything runs and verifies", "all",
       "all", "2048", "", {{"comm_sms", "16"}, {"chunks", "2"}}},
      {"fig5", "the SM split: inter_sm at comm SMs 2..32 step 2 beside the GEMM alone and the baseline (Figure 5)",
       "all", "gemm_pk,gemm_cublas,coll_nccl,cublas_nccl,intra_sm,inter_sm", "4096,8192,16384", "",
       {{"comm_sms", "2:32:+2"}}},
      {"table3", "GEMM+RS at M = N = 16384 over K = 512 .. 8192 (Table 3: GEMM alone, fused, comm ratio)", "gemm_rs",
       "gemm_pk,gemm_cublas,coll_nccl,cublas_nccl,intra_sm,inter_sm", "",
       "16384x16384x512,16384x16384x1024,16384x16384x2048,16384x16384x4096,16384x16384x8192", {{"comm_sms", "16"}}},
      {"comm_only",
       "the inter-SM GEMM+RS and GEMM+AR communicators alone (K = 64 at M = N = 4096), comm SMs 4, 8, 16, 32: the "
       "cost model's T_comm, run beside a fused run at its GPU counts",
       "gemm_rs,gemm_ar", "inter_sm", "", "4096x4096x64", {{"comm_sms", "4,8,16,32"}}},
  };
  return v;
}

const Preset& preset(const std::string& name) {
  for (const Preset& p : presets())
    if (p.name == name) return p;
  throw ArgError("--preset: unknown preset '" + name + "'");
}

class FusedStudy {
 public:
  FusedStudy(PeerGroup& g, PointResults& r, const FusedOptions& o, const std::vector<Point>& points)
      : ctx_(g, o, points), results_(r), opt_(o) {}

  void run_point(benchmark::State& state, const Point& p) {
    run_described_point(state, results_, p.name(), describe(p), opt_.timing.gap_ms, [&](Row& row) { measure(state, p, row); });
  }

 private:
  Row describe(const Point& p) const {
    const int w = ctx_.world();
    const Shape& s = p.shape;
    const Point run = point_run(p);  // a refused tuned point runs nothing: no schedule
    const bool runs = run.schedule != kTunedSchedule;
    Row r{{"study", "fused"},
          {"op", op_name(p.op)},
          {"impl", p.schedule},
          {"overlap", p.tuning ? kTunedSchedule : overlap_of(schedule(p.schedule))},
          {"gpus", std::to_string(w)},
          {"size_n", p.size_n ? std::to_string(p.size_n) : ""},
          {"m", std::to_string(s.m)},
          {"n", std::to_string(s.n)},
          {"k", std::to_string(s.k)},
          {"flops", fmt_num(s.flops())},
          {"verified", "no"}};
    for (const auto& [k, v] : p.knobs) r[k] = std::to_string(v);
    if (p.tuning) r["tuning"] = p.tuning->answer;
    if (runs) {
      const Schedule& sch = schedule(run.schedule);
      r["comm_bytes"] = sch.computes == Computes::gemm ? "0" : fmt_num(sch.comm_bytes(p.op, s, w));
    }
    const double a = double(s.m) * s.k, b = double(s.n) * s.k, c = double(s.m) * s.n;
    r["working_set_bytes"] = fmt_num(2 * (a + b + (p.op == Op::ag_gemm ? c : 2 * c)));
    return r;
  }

  static std::string key(const Point& p) { return op_name(p.op) + "/" + p.shape.str(); }

  double min_clock() {
    point_cost::Phase cost("clock");
    double c = 1e9;
    for (int g : ctx_.local_gpus())
      if (auto mhz = nvml::sm_clock_mhz(ctx_.gpu(g).pci_bus_id)) c = std::min(c, double(*mhz));
    c = ctx_.group.comm().min(c);
    return c >= 1e9 ? 0 : c;
  }

  // A tuned point runs what its table answered (point_run) under its own name and row.
  void measure(benchmark::State& state, const Point& tp, Row& row) {
    const Point p = point_run(tp);
    // The shape's inputs and references (made again after a verified run's fresh inputs).
    point_cost::within("inputs", [&] { ctx_.ensure_shape(p.op, p.shape); });
    // SkipPoint where the table refused.
    std::unique_ptr<Impl> impl = point_cost::within("setup", [&] { return make_impl(tp, ctx_); });
    row["compute_sms"] = impl->compute_sms ? std::to_string(impl->compute_sms) : "";
    row["comm_blocks"] = std::to_string(impl->comm_blocks);
    row["group_m"] = impl->group_m ? std::to_string(impl->group_m) : "";
    row["tile_order"] = impl->tile_order;
    row["algo"] = impl->algo;
    point_cost::within("fill", [&] { ctx_.prepare_point(p); });
    // How long the GPU may have idled since the previous point's last operation (its verified
    // run): what decides this point's warm-up, with the shape and whether it is the first.
    const double idle_ms = ctx_.ms_since_operation();

    std::vector<Flow> flows;
    const auto& gpus = ctx_.local_gpus();
    for (size_t i = 0; i < gpus.size(); ++i) {
      // The first flow's callback queues the operation on every GPU of this process (an NCCL
      // group must span them); each flow's events still time its own GPU's stream.
      Impl* ip = impl.get();
      Flow f{gpus[i], gpus[i], ctx_.stream(gpus[i]), i == 0 ? impl->enqueues_per_op() : 1,
             i == 0 ? std::function<void(int)>([ip](int) { ip->enqueue(); }) : std::function<void(int)>([](int) {})};
      flows.push_back(std::move(f));
    }
    // Every rank warms up alike (calibrate() decides on the longest elapsed time against it).
    WarmupState ws;
    ws.first_point = last_timed_.empty();
    ws.shape_changed = !ws.first_point && last_timed_ != key(p);
    ws.idle_ms = idle_ms;
    TimingOptions timing = opt_.timing;
    timing.warmup_ms = ctx_.group.comm().max(point_warmup(opt_.warmup_policy(), ws).ms);
    last_timed_ = key(p);
    FlowTimer timer(ctx_.group, std::move(flows), ctx_.world(), ctx_.gate, ctx_.status, timing);
    row["sm_clock_mhz_start"] = fmt_num(min_clock());
    row["sm_clock_mhz_max"] = std::to_string(ctx_.gpu(gpus.front()).sm_clock_max_mhz);
    const int k = timer.calibrate();
    const std::vector<double> ms = sample_ms_per_op(state, timer);
    ctx_.note_operation();
    row["sm_clock_mhz_end"] = fmt_num(min_clock());

    // A wrong result is an error, never a number: one more run of the same operation on new
    // inputs into re-poisoned outputs is checked.
    const gemm::Comparison cmp = point_cost::within("verify", [&] { return verify_fresh_run(ctx_, *impl, p); });
    row["rel_fro_err"] = fmt_num(cmp.rel_fro_err, 4);
    row["max_rel_err"] = fmt_num(cmp.max_rel_err, 4);
    row["wrong"] = std::to_string(cmp.wrong);
    row["elem_tol"] = fmt_num(cmp.elem_tol, 4);
    if (!cmp.ok()) throw std::runtime_error("wrong result: " + cmp.describe());
    row["verified"] = "yes";

    const SampleStats st = summarize(ms);
    const double us = st.median * 1e3;
    put_times(row, st, k);
    const Schedule& sch = schedule(p.schedule);
    if (sch.computes != Computes::collective) {  // a collective alone does no GEMM
      row["tflops"] = fmt_num(p.shape.flops() / (st.median * 1e9));
      row["tflops_best"] = fmt_num(p.shape.flops() / (st.min * 1e9));
      state.counters["TFLOP/s"] = p.shape.flops() / (st.median * 1e9);
    }

    // Shares against the components this run measured before (schedules run in the given order). Which baseline is
    // best and every speedup over it are the sweeps' (microbench/fused/fused_analysis.h), from the rows:
    // a searched baseline writes one row per knob setting, its knobs in their own columns.
    auto& seen = times_[key(p)];
    double& best = seen[tp.schedule];
    if (best <= 0 || us < best) best = us;
    auto at = [&](const char* s) { auto it = seen.find(s); return it == seen.end() ? 0.0 : it->second; };
    if (const double lt = at("gemm_cublas"), nc = at("coll_nccl"); lt > 0 && nc > 0) row["comm_share"] = fmt_num(nc / (lt + nc), 4);
    if (sch.kind == Kind::component) return;  // the comm ratio is of a solution of the fused problem
    if (const double g = at("gemm_pk"); g > 0) {
      row["gemm_us"] = fmt_num(g);
      row["comm_ratio"] = fmt_num(std::max(0.0, (us - g) / us), 4);
    }
  }

  Context ctx_;
  PointResults& results_;
  FusedOptions opt_;
  std::map<std::string, std::map<std::string, double>> times_;  // (op, shape) -> schedule -> best median us
  std::string last_timed_;  // key() of the last point that reached its warm-up ("" before the first)
};

// Every schedule runs this suite's GEMM (TMA, clusters, wgmma): what a GPU without them skips.
// --list's estimate: the point's GEMM at a nominal 500 TFLOP/s (the communication hidden or
// beside it), timed as a gated point is (harness/study.h: planned_point_ms).
std::vector<ListedPoint> listed(const std::vector<Point>& points, const GpuInfo& g, const TimingOptions& t) {
  const std::string why = missing_features({Feature::device_code, Feature::tma, Feature::clusters, Feature::wgmma}, g);
  std::vector<ListedPoint> out;
  for (const auto& p : points) out.push_back({p.name(), why, planned_point_ms(t, std::max(0.02, p.shape.flops() / 5e11 * 1e-3))});
  return out;
}

class FusedPlan : public PointStudyPlan<Point, FusedStudy> {
 public:
  explicit FusedPlan(StudyMain& study) : study_(study) {
    // No gap: back to back, the GPU stays at the steady state a GEMM-bound point needs, and
    // the short warm-up (WarmupPolicy) suffices; a gap asks for the full one after it.
    opt_.timing = TimingOptions::gemm_bound(0);
    // One warm-up run at least, not two: on one H100 with 4 virtual ranks the whole main grid
    // both ways agreed (46 points, time_us_median ratio median 1.001, p10 0.982, p90 1.016) and
    // the median harness cost per point fell from 66.9 to 56.4 ms.
    opt_.timing.warmup_runs = 1;
    // The point's first launch is the warm-up's first run, outside the gate (cuBLASLt and NCCL
    // load kernels lazily there), not a separate untimed run before the warm-up: with cuBLASLt's
    // reused launches queued together (GemmRunners::tune), 39.6 ms against 51.2 in the same
    // sitting, the points' times the same (results/h100x1/harness-cost/README.md).
    opt_.timing.ungated_first_run = true;
    CLI::App& app = study.cli().app();
    std::string sdesc, odesc;
    for (const auto& s : schedules()) sdesc += "\n    " + s.name + " (" + kind_name(s.kind) + "): " + s.summary;
    for (Op op : all_ops()) odesc += "\n    " + op_name(op) + ": " + op_description(op);
    add_preset_option(app, preset_name_, presets());
    app.add_option("--ops", ops_arg_, "operators (comma list or all):" + odesc);
    app.add_option("--schedules", schedules_arg_, "schedules (comma list or all), run in this order per shape:" + sdesc);
    app.add_option("--sizes", sizes_arg_, "the paper's N (list or range): local shapes N x N/w x N (AG) or N x N x N/w (RS, AR)");
    app.add_option("--shapes", shapes_arg_, "explicit local shapes MxNxK for every operator (e.g. the K sweep of Table 3)");
    for (const Knob* k : all_knobs())
      app.add_option("--" + k->flag, knob_args_[k->name],
                     k->help + " [" + k->unit + ", " + std::to_string(k->lo) + ".." + std::to_string(k->hi) + "]");
    app.add_option("--group-m", opt_.group_m, "band height of the grouped tile order (0: each kernel's default)")
        ->check(CLI::Range(0, 1 << 20))
        ->capture_default_str();
    study.enable_gpu_counts();  // the scaling figure: every GPU count 2..N of one run (--gpu-counts=all)
    app.add_option("--tuning-table", tuning_table_,
                   "a fused tuning table (pkbench_tune's fused_tuning.json): adds the `tuned` schedule after each "
                   "operator and shape, configured from the table through pkbench/tuning.h (Tuner::choose_split) as a "
                   "user's program would be (column tuning says what it answered). The table must be of this machine; a "
                   "table of virtual ranks only for a run on the same virtual ranks (pkbench_tune --allow-virtual)");
    add_timing_flags(app, opt_.timing, opt_.study_warmup_ms, "GEMMs run");
    app.get_option("--warmup-ms")
        ->description("the full per-point warm-up, wherever the GPUs may have idled or run other work (below)");
    app.add_option("--short-warmup-ms", opt_.short_warmup_ms,
                   "warm-up of a point whose GPUs ran the previous point of the same operator and shape until at most " +
                       fmt_num(WarmupPolicy{}.max_idle_ms) +
                       " ms before; the full one (--warmup-ms) runs before a round's first point, on a new operator or "
                       "shape, after longer idle and after any --gap-ms")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    app.add_flag("--warmup-every-point", opt_.warmup_every_point, "the full warm-up (--warmup-ms) before every point");
  }

  void check_flags() override {
    const Preset& pre = preset(preset_name_);
    const auto pick = [](const std::string& given, const std::string& dflt) { return given.empty() ? dflt : given; };
    std::vector<std::string> op_names_all;
    for (Op op : all_ops()) op_names_all.push_back(op_name(op));
    for (const auto& n : parse_name_list(pick(ops_arg_, pre.ops), op_names_all, "operator (--ops)")) grid_.ops.push_back(parse_op(n));
    grid_.schedules = parse_name_list(pick(schedules_arg_, pre.schedules), schedule_names(), "schedule (--schedules)");
    const std::string sizes = sizes_arg_.empty() && shapes_arg_.empty() ? pre.sizes : sizes_arg_;
    const std::string shapes = sizes_arg_.empty() && shapes_arg_.empty() ? pre.shapes : shapes_arg_;
    auto parse_sizes = [](const std::string& text) {
      try {
        return parse_int_list(text, 0);
      } catch (const ArgError& e) {
        throw ArgError(std::string("--sizes: ") + e.what());
      }
    };
    if (!sizes.empty()) grid_.sizes = parse_sizes(sizes);
    if (!shapes.empty()) grid_.shapes = gemm::parse_shapes(shapes);
    for (const Knob* k : all_knobs()) {
      std::string v = knob_args_[k->name];
      if (v.empty() && pre.knobs.count(k->name)) v = pre.knobs.at(k->name);
      if (!v.empty()) grid_.knob_values[k->name] = parse_knob_list(*k, v);
    }
    // A partial round (fewer GPUs than the run's) runs the preset's partial sizes where the
    // flags leave the sizes to it.
    partial_grid_ = grid_;
    partial_sizes_ = sizes_arg_.empty() && shapes_arg_.empty();
    if (partial_sizes_ && !pre.partial_sizes.empty()) {
      partial_grid_.sizes = parse_sizes(pre.partial_sizes);
      partial_grid_.shapes.clear();
    }
    if (schedules_arg_.empty() && !pre.partial_schedules.empty())
      partial_grid_.schedules = parse_name_list(pre.partial_schedules, schedule_names(), "schedule (--schedules)");
    // What needs no GPU is refused now: the tile, and the GPU count when --world names it.
    build_points(grid_, study_.world_hint());
    if (!tuning_table_.empty()) check_tuning_table(tuning_table_);  // its machine once the GPUs are known
    if (const std::string mc = keep_nccl_multicast_off(); !mc.empty()) throw ArgError(mc);
  }
  std::vector<ListedPoint> plan(const GpuInfo& g) override {
    const int w = study_.planned_world();
    study_.note("note: points planned for " + std::to_string(w) + " GPUs (--world)");
    if (!tuning_table_.empty()) study_.note("note: the tuned points are answered for this machine's GPUs: not listed here");
    return listed(build_points(w < study_.run_gpus() ? partial_grid(w) : grid_, w), g, planned_timing());
  }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    const int world = study_.world_hint();
    if (world > 0 && world != study_.run_gpus())
      throw ArgError("--world=" + std::to_string(world) + " but the run has " + std::to_string(study_.run_gpus()) + " GPUs");
    const bool partial = group.size() < study_.run_gpus();
    for (const GpuInfo& g : group.topology().gpus)
      if (g.cc_major != 9)
        throw ArgError("the fused kernels need Hopper GPUs (sm_90a); GPU" + std::to_string(g.ordinal) + " is " + g.name);
    points_ = build_points(partial ? partial_grid(group.size()) : grid_, group.size());
    // A table answers for the run's GPUs: the tuned points run in its full round only.
    if (!tuning_table_.empty() && !partial) {  // refused for another machine before any point runs
      const Row meta = metadata_row(group);
      const pkbench::tuning::Tuner tuner = load_tuning_table(
          tuning_table_, tuning_machine(meta.at("gpu_name"), std::stoi(meta.at("gpu_count")), group.is_virtual(), group.size()));
      points_ = with_tuned_points(points_, tuner, tuning_table_, group.size());
    }
    return listed(points_, group.topology().gpus[0], planned_timing());
  }
  void setup(PeerGroup& group, PointResults& results) override {
    if (!NcclComms::built()) study_.note("note: this build has no NCCL: the NCCL schedules are skipped");
    else study_.note("NCCL " + NcclComms::version() + " (NCCL_NVLS_ENABLE=0)");
    if (!nvml::available()) study_.note("note: NVML unavailable (" + nvml::unavailable_reason() + "): no clock readings");
    study_.note(std::to_string(points_.size()) + " points");
    run_points(std::make_unique<FusedStudy>(group, results, opt_, points_), opt_.timing.samples);
  }
  std::vector<std::string> columns() const override { return fused_columns(); }

 private:
  StudyMain& study_;
  FusedOptions opt_;
  std::string preset_name_ = "default", ops_arg_, schedules_arg_, sizes_arg_, shapes_arg_, tuning_table_;
  std::map<std::string, std::string> knob_args_;
  GridSpec grid_, partial_grid_;
  bool partial_sizes_ = false;  // partial_grid_'s sizes are the preset's (not --sizes): fitted per count

  // What --list estimates a point with: the warm-up most points run (WarmupPolicy).
  TimingOptions planned_timing() const {
    TimingOptions t = opt_.timing;
    WarmupState typical;
    typical.first_point = false;
    t.warmup_ms = point_warmup(opt_.warmup_policy(), typical).ms;
    return t;
  }

  // A partial round's grid on `world` GPUs, fitted so that every count 2..N runs: the preset's
  // N rounded down to the nearest that splits into whole tiles on that many GPUs (a multiple of
  // 256 x world: N / world columns of whole 256-column tiles, N rows of whole 128-row shards;
  // 8192 on 3 GPUs is 7680), explicit shapes' M to whole 128-row shards (the communicator-only
  // rows' 4096 on 3 GPUs is 3840). The full round takes sizes and shapes as given (checked).
  GridSpec partial_grid(int world) const {
    GridSpec g = partial_grid_;
    if (partial_sizes_)
      for (int& n : g.sizes) n = std::max(kTileN * world, n / (kTileN * world) * (kTileN * world));
    for (auto& s : g.shapes) s.m = std::max(kTileM * world, s.m / (kTileM * world) * (kTileM * world));
    return g;
  }
};

}  // namespace
}  // namespace pk::fused

PK_STUDY_MAIN(pk::fused::FusedPlan, "pkbench_fused", pk::fused::kStudyDescription, "fused.csv")
