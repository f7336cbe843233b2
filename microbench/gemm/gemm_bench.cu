// pkbench_gemm: this suite's Hopper bf16 GEMM (kernels/gemm/) against cuBLASLt, per shape
// and SM count. One Google Benchmark per point; one tidy CSV row per point (schema:
// gemm_columns()). Every result is checked against a cuBLASLt reference after timing, then one
// more run on fresh inputs (a new seed) into a poisoned output; each reference is checked
// against fp64 host dot products.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/nvml.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/study_point.h"
#include "microbench/harness/timing.h"
#include "microbench/gemm/cublaslt_gemm.h"
#include "microbench/gemm/gemm_data.h"
#include "microbench/gemm/gemm_problem.h"
#include "microbench/gemm/pk_gemm.h"

namespace pk::gemm {

// What --help says the binary measures.
constexpr const char* kStudyDescription =
    "This suite's Hopper bf16 GEMM (C = A * B^T, A MxK and B NxK row-major, fp32 accumulation) "
    "against cuBLASLt, per shape and SM count.";

namespace {

constexpr const char* kDefaultShapes =
    // 8192^3; the paper's fused shapes (Figures 7-9) with 8 GPUs replaced by 2 at N = 8192
    // and 16384: all-gather + GEMM local N x N/2 x N, GEMM + reduce-scatter / all-reduce
    // local N x N x N/2; and 4096^3 (one wave-quantised, L2-resident case).
    "8192x8192x8192,8192x4096x8192,8192x8192x4096,16384x8192x16384,16384x16384x8192,4096x4096x4096";

// The study's named grids (--preset), declared once: the lists a run measures where its flags
// leave them out. scripts/reproduce.sh runs "model" by name.
struct GemmPreset {
  std::string name, help, shapes, sms, impls;
};
const std::vector<GemmPreset>& gemm_presets() {
  static const std::vector<GemmPreset> v = {
      {"default", "the paper's fused shapes, 8192^3 and 4096^3 (--shapes) on every SM count, both implementations",
       kDefaultShapes, "all", "cublaslt,pkbench"},
      {"small", "4096^3 and 8192^3 on every SM count, both implementations: scripts/run.sh's one-GPU profile",
       "4096x4096x4096,8192x8192x8192", "all", "cublaslt,pkbench"},
      {"model", "Section 3.1.1's cost model: this suite's GEMM at 8192x8192x4096 on 66 to 132 SMs", "8192x8192x4096",
       "66,100,108,116,124,132", "pkbench"},
  };
  return v;
}

struct StudyOptions {
  TimingOptions timing;
  double study_warmup_ms = 500;
  int group_m = 0;  // 0: each variant's default
  int max_groups = 16;
};

// What an implementation needs of the GPU: this suite's GEMM is wgmma (sm_90a only, until a
// Blackwell GEMM exists); cuBLASLt stands in for compute everywhere (the harness's gate is a
// kernel of this build).
std::vector<Feature> needs_of(const std::string& impl) {
  if (impl == kImplPk) return {Feature::device_code, Feature::tma, Feature::clusters, Feature::wgmma};
  return {Feature::device_code};
}

class GemmStudy : private GatedRig {
 public:
  GemmStudy(PeerGroup& g, PointResults& r, StudyOptions o) : GatedRig(g, r), opt_(o) {
    group_.set_device(0);
    stream_ = streams_.get(0, 0);
  }
  ~GemmStudy() { release(); }

  void run_point(benchmark::State& state, const Point& p) {
    Row row = describe(p);
    measure_point(state, row, [&] { measure(state, p, row); });
    if (row["status"] == kOk && p.impl == kImplCublas) cublas_tflops_[key(p)] = std::stod(row["tflops"]);
    results_.put(p.name(), row);
    idle_gap(opt_.timing.gap_ms);
  }

 private:
  struct Buffers {
    Shape shape;
    int groups = 0;
    std::vector<void*> a, b, c, ref;
    double ref_rms = 0;
    std::string ref_error;  // the reference failed its fp64 spot check: every point of the shape is an error
  };

  static std::string key(const Point& p) { return p.shape.str() + "/" + std::to_string(p.sms); }

  Row describe(const Point& p) const {
    Row r{{"study", "gemm"},
          {"impl", p.impl},
          {"variant", p.variant},
          {"m", std::to_string(p.shape.m)},
          {"n", std::to_string(p.shape.n)},
          {"k", std::to_string(p.shape.k)},
          {"sms", std::to_string(p.sms)},
          {"verified", "no"}};
    if (p.impl == kImplPk) {
      const VariantInfo& v = variant_info(p.variant);
      r["tile"] = v.tile();
      r["stages"] = std::to_string(v.stages);
      r["cluster_m"] = std::to_string(v.cluster_m);
    }
    return r;
  }

  void release() {
    for (auto* v : {&buf_.a, &buf_.b, &buf_.c, &buf_.ref})
      for (void* p : *v) cudaFree(p);
    buf_ = Buffers{};
  }

  // Inputs for a new shape: random A and B per input group (enough groups that the working
  // set is at least 3x L2), poisoned outputs, and the cuBLASLt reference of every group.
  void ensure_shape(const Shape& s) {
    if (buf_.groups > 0 && buf_.shape == s) return;
    release();
    const GpuInfo& g = topo_.gpus[0];
    const uint64_t ea = uint64_t(s.m) * s.k, eb = uint64_t(s.n) * s.k, ec = uint64_t(s.m) * s.n;
    const uint64_t ws = 2 * (ea + eb + ec);
    const uint64_t want = 3 * uint64_t(g.l2_bytes);
    buf_.shape = s;
    buf_.groups = ws >= want ? 1 : int(std::min<uint64_t>(opt_.max_groups, (want + ws - 1) / ws));
    for (int i = 0; i < buf_.groups; ++i) {
      void *a, *b, *c, *r;
      PK_CUDA_CHECK(cudaMalloc(&a, ea * 2));
      buf_.a.push_back(a);
      PK_CUDA_CHECK(cudaMalloc(&b, eb * 2));
      buf_.b.push_back(b);
      PK_CUDA_CHECK(cudaMalloc(&c, ec * 2));
      buf_.c.push_back(c);
      PK_CUDA_CHECK(cudaMalloc(&r, ec * 2));
      buf_.ref.push_back(r);
    }
    CublasLtGemm ref(s.m, s.n, s.k, 0);
    for (int i = 0; i < buf_.groups; ++i) fill_group(i, &ref);
    if (!warmed_up_) {  // clocks and power settle on real work before the first point
      using clock = std::chrono::steady_clock;
      const auto t0 = clock::now();
      while (std::chrono::duration<double, std::milli>(clock::now() - t0).count() < opt_.study_warmup_ms) {
        for (int i = 0; i < 4; ++i) ref.run(buf_.a[0], buf_.b[0], buf_.c[0], stream_);
        PK_CUDA_CHECK(cudaStreamSynchronize(stream_));
      }
      warmed_up_ = true;
    }
    const Comparison self = compare_bf16(buf_.ref[0], buf_.ref[0], ec);  // rms of the reference
    buf_.ref_rms = self.ref_rms;
    const Comparison spot = spot_check_host(buf_.a[0], buf_.b[0], buf_.ref[0], s.m, s.n, s.k, buf_.ref_rms, 64, 0x5eed);
    if (!spot.ok() || self.wrong)
      buf_.ref_error = "cuBLASLt reference failed the fp64 host check: " + spot.describe();
    std::fprintf(stderr, "gemm: shape %s, %d input group(s), reference rms %.3g, fp64 spot check max rel err %.3g\n",
                 s.str().c_str(), buf_.groups, buf_.ref_rms, spot.max_rel_err);
  }

  // Input group i's timed inputs (seeded by i) and its cuBLASLt reference.
  void fill_group(int i, const CublasLtGemm* ref = nullptr) {
    const Shape& s = buf_.shape;
    fill_bf16_uniform(buf_.a[i], uint64_t(s.m) * s.k, 0xA000 + i);
    fill_bf16_uniform(buf_.b[i], uint64_t(s.n) * s.k, 0xB000 + i);
    PK_CUDA_CHECK(cudaMemset(buf_.ref[i], kPoisonByte, uint64_t(s.m) * s.n * 2));
    if (ref) ref->run(buf_.a[i], buf_.b[i], buf_.ref[i], nullptr);
    else CublasLtGemm(s.m, s.n, s.k, 0).run(buf_.a[i], buf_.b[i], buf_.ref[i], nullptr);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }

  unsigned sm_clock() const {
    point_cost::Phase cost("clock");
    auto mhz = nvml::sm_clock_mhz(topo_.gpus[0].pci_bus_id);
    return mhz ? *mhz : 0;
  }

  // Launches once with %smid recording and checks that the blocks ran on distinct SMs.
  void check_distinct_sms(PkGemm& g, const Point& p, Row& row) {
    int* smids = nullptr;
    PK_CUDA_CHECK(cudaMalloc(&smids, sizeof(int) * p.sms));
    try {
      PK_CUDA_CHECK(cudaMemset(smids, 0xFF, sizeof(int) * p.sms));
      const int h = g.add(buf_.a[0], buf_.b[0], buf_.c[0], p.shape, opt_.group_m, smids,
                          status_.deadline(0, opt_.timing.timeout_ms));
      g.launch(h, stream_);
      PK_CUDA_CHECK(cudaStreamSynchronize(stream_));
      status_.check({0});
      std::vector<int> h_ids(p.sms);
      PK_CUDA_CHECK(cudaMemcpy(h_ids.data(), smids, sizeof(int) * p.sms, cudaMemcpyDeviceToHost));
      std::set<int> distinct(h_ids.begin(), h_ids.end());
      const bool ok = distinct.size() == size_t(p.sms) && !distinct.count(-1);
      row["smids_distinct"] = ok ? "yes" : "no";
      if (!ok)
        throw std::runtime_error(std::to_string(p.sms) + " blocks ran on " + std::to_string(distinct.size()) +
                                 " distinct SMs (one per SM expected)");
    } catch (...) {
      cudaFree(smids);
      throw;
    }
    PK_CUDA_CHECK(cudaFree(smids));
  }

  // The implementation under test, ready for the point: this suite's kernel with one handle
  // per input group, or cuBLASLt.
  struct Impl {
    std::unique_ptr<PkGemm> pk;
    std::unique_ptr<CublasLtGemm> lt;
    std::vector<int> handles;
  };

  // One operation of `impl` on input group gi.
  void launch(const Impl& impl, int gi, cudaStream_t s) const {
    if (impl.pk)
      impl.pk->launch(impl.handles[gi], s);
    else
      impl.lt->run(buf_.a[gi], buf_.b[gi], buf_.c[gi], s);
  }

  // The shape's inputs and references (shared by the points of a shape); a reference that
  // failed its fp64 check makes the point an error.
  void use_shape(const Shape& s, Row& row) {
    ensure_shape(s);
    row["groups"] = std::to_string(buf_.groups);
    if (!buf_.ref_error.empty()) throw std::runtime_error(buf_.ref_error);
  }

  // This suite's kernel on p.sms SMs (a variant's clusters must divide them), checked to run
  // one block per SM, with a handle per input group.
  Impl prepare_pk(const Point& p, Row& row) {
    const VariantInfo& v = variant_info(p.variant);
    if (p.sms % v.cluster_m)
      throw SkipPoint("variant " + v.name + " runs clusters of " + std::to_string(v.cluster_m) + " blocks: " +
                      std::to_string(p.sms) + " SMs is not a multiple");
    Impl impl;
    impl.pk = std::make_unique<PkGemm>(p.variant, topo_.gpus[0], p.sms);
    check_distinct_sms(*impl.pk, p, row);
    for (int i = 0; i < buf_.groups; ++i)
      impl.handles.push_back(impl.pk->add(buf_.a[i], buf_.b[i], buf_.c[i], p.shape, opt_.group_m, nullptr,
                                          status_.deadline(0, opt_.timing.timeout_ms)));
    row["group_m"] = std::to_string(impl.pk->group_m(impl.handles[0]));
    return impl;
  }

  // cuBLASLt with p.sms as its SM-count target (none when it is the whole GPU), autotuned.
  Impl prepare_cublas(const Point& p, Row& row) {
    const GpuInfo& g = topo_.gpus[0];
    Impl impl;
    impl.lt = std::make_unique<CublasLtGemm>(p.shape.m, p.shape.n, p.shape.k, p.sms >= g.sm_count ? 0 : p.sms);
    // cuBLASLt at its best: the fastest of its heuristic's top candidates on these operands.
    // This also launches the kernel once outside the start gate: cuBLASLt loads a kernel it
    // has not run yet at its first launch, and that load waits for the GPU to go idle, which
    // it never does behind the spinning gate kernel (seen as gate timeouts with an SM-count
    // target).
    // Once per shape and SM target in a process (a later point of it reuses the choice).
    impl.lt->autotune(buf_.a[0], buf_.b[0], buf_.c[0], stream_, g.pci_bus_id, g.sm_count);
    row["algo"] = impl.lt->algo_description();
    PK_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return impl;
  }

  // Every group's output poisoned before the timed runs write it.
  void poison_outputs(const Shape& s) {
    const uint64_t ec = uint64_t(s.m) * s.n;
    for (int i = 0; i < buf_.groups; ++i) PK_CUDA_CHECK(cudaMemset(buf_.c[i], kPoisonByte, ec * 2));
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // Per-operation times of every sample, and the operations per sample.
  struct Times {
    std::vector<double> ms;
    int k = 0;
  };

  // Calibrates and samples `timer`, with the SM clock before and after in the row.
  Times take_samples(benchmark::State& state, FlowTimer& timer, Row& row) {
    row["sm_clock_mhz_start"] = std::to_string(sm_clock());
    row["sm_clock_mhz_max"] = std::to_string(topo_.gpus[0].sm_clock_max_mhz);
    Times t;
    t.k = timer.calibrate();
    t.ms = sample_ms_per_op(state, timer);
    row["sm_clock_mhz_end"] = std::to_string(sm_clock());
    PK_CUDA_CHECK(cudaDeviceSynchronize());
    return t;
  }

  // A wrong result is an error, never a number: every group an operation wrote (the first
  // `written`), then one more operation on fresh inputs.
  void verify(const Point& p, const Impl& impl, int written, Row& row) {
    const uint64_t ec = uint64_t(p.shape.m) * p.shape.n;
    Comparison worst;
    for (int i = 0; i < written; ++i) worst.merge(compare_bf16(buf_.c[i], buf_.ref[i], ec));
    // The same operation once more on fresh inputs (a new seed) into a poisoned output: the
    // check above passes one that wrote nothing after its warm-up. Group 0 then gets its timed
    // inputs back (bitwise the same for every implementation compared).
    const Shape& sh = p.shape;
    const cudaStream_t s = stream_;
    const Comparison fresh = check_fresh_run(
        sh.m, sh.n, sh.k, buf_.a[0], buf_.b[0], buf_.c[0], buf_.ref[0], 0xF0000 + ++fresh_seeds_,
        [&] { CublasLtGemm(sh.m, sh.n, sh.k, 0).run(buf_.a[0], buf_.b[0], buf_.ref[0], nullptr); },
        [&] { launch(impl, 0, s); });
    fill_group(0);
    worst.merge(fresh);
    row["rel_fro_err"] = fmt_num(worst.rel_fro_err, 4);
    row["max_rel_err"] = fmt_num(worst.max_rel_err, 4);
    row["wrong"] = std::to_string(worst.wrong);
    if (!worst.ok()) throw std::runtime_error("wrong result: " + worst.describe());
    row["verified"] = "yes";
  }

  // Times and throughput into the row and the benchmark's counters, against cuBLASLt's figure
  // for the same shape and SM count where it ran first.
  void put_throughput(benchmark::State& state, const Point& p, const Times& t, Row& row) const {
    const SampleStats st = summarize(t.ms);
    const double tflops = p.shape.flops() / (st.median * 1e9);
    put_times(row, st, t.k);
    row["tflops"] = fmt_num(tflops);
    row["tflops_best"] = fmt_num(p.shape.flops() / (st.min * 1e9));
    state.counters["TFLOP/s"] = tflops;
    if (p.impl == kImplCublas) {
      row["ratio_to_cublas"] = "1";
    } else if (auto it = cublas_tflops_.find(key(p)); it != cublas_tflops_.end() && it->second > 0) {
      row["ratio_to_cublas"] = fmt_num(tflops / it->second, 4);
      state.counters["x_cublas"] = tflops / it->second;
    }
  }

  void measure(benchmark::State& state, const Point& p, Row& row) {
    if (auto why = missing_features(needs_of(p.impl), topo_.gpus[0]); !why.empty()) throw SkipPoint(why);
    point_cost::within("inputs", [&] { use_shape(p.shape, row); });
    const Impl impl =
        point_cost::within("setup", [&] { return p.impl == kImplPk ? prepare_pk(p, row) : prepare_cublas(p, row); });
    point_cost::within("fill", [&] { poison_outputs(p.shape); });

    const int groups = buf_.groups;
    const cudaStream_t s = stream_;
    std::vector<Flow> flows;
    flows.push_back(Flow{0, 0, s, 1, [this, &impl, s, groups](int op) { launch(impl, op % groups, s); }});
    FlowTimer timer(group_, std::move(flows), 1, gate_, status_, opt_.timing);
    const Times times = take_samples(state, timer, row);
    point_cost::within("verify", [&] { verify(p, impl, std::min(groups, timer.ops_run()), row); });
    put_throughput(state, p, times, row);
  }

  StudyOptions opt_;
  cudaStream_t stream_ = nullptr;
  Buffers buf_;
  bool warmed_up_ = false;
  uint64_t fresh_seeds_ = 0;  // seeds handed to the final checks, never the timed inputs'
  std::map<std::string, double> cublas_tflops_;
};

std::vector<std::string> variant_names() {
  std::vector<std::string> v;
  for (const auto& i : variant_infos()) v.push_back(i.name);
  return v;
}

class GemmPlan : public PointStudyPlan<Point, GemmStudy> {
 public:
  explicit GemmPlan(StudyMain& study) : study_(study) {
    opt_.timing = TimingOptions::gemm_bound(50);
    std::string vdesc;
    for (const auto& v : variant_infos()) vdesc += "\n    " + v.description();
    CLI::App& app = study.cli().app();
    add_preset_option(app, preset_, gemm_presets());
    app.add_option("--shapes", shapes_arg_, "comma list of MxNxK (default: the preset's; default preset: " +
                                                 std::string(kDefaultShapes) + ")");
    app.add_option("--sms", sms_arg_,
                   "SM counts: list/range (e.g. 132,100 or 66:132:+22) or all; pkbench runs one block per SM, "
                   "cuBLASLt gets the count as CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET (default: the preset's)");
    app.add_option("--impls", impls_arg_, "cublaslt, pkbench (or all; default: the preset's)");
    app.add_option("--variants", variants_arg_, "pkbench kernel variants (or all); c1 is the base of the fused kernels:" + vdesc)
        ->capture_default_str();
    app.add_option("--group-m", opt_.group_m, "grouped tile order: band height in cluster-tile rows (0: variant default)")
        ->check(CLI::Range(0, 1 << 20))
        ->capture_default_str();
    add_timing_flags(app, opt_.timing, opt_.study_warmup_ms, "GEMMs run");
  }

  void check_flags() override {
    const GemmPreset& p = find_named(gemm_presets(), preset_, "--preset: unknown preset");
    if (shapes_arg_.empty()) shapes_arg_ = p.shapes;
    if (sms_arg_.empty()) sms_arg_ = p.sms;
    if (impls_arg_.empty()) impls_arg_ = p.impls;
    shapes_ = parse_shapes(shapes_arg_);
    impls_ = parse_name_list(impls_arg_, {kImplCublas, kImplPk}, "implementation (--impls)");
    variants_ = parse_name_list(variants_arg_, variant_names(), "variant (--variants)");
    if (std::find(impls_.begin(), impls_.end(), kImplPk) != impls_.end())
      for (const auto& v : variants_)
        for (const auto& s : shapes_) check_shape(variant_info(v), s);
    try {
      // More SMs than any supported GPU has is refused here, before the GPU is looked for.
      const int most = largest_supported_gpu().sm_count;
      for (int n : parse_int_list(sms_arg_, INT_MAX))
        if (n < 1) throw ArgError("SM counts must be >= 1");
        else if (n != INT_MAX && n > most)
          throw ArgError(std::to_string(n) + " SMs: no supported GPU has more than " + std::to_string(most));
    } catch (const ArgError& e) {
      throw ArgError(std::string("--sms: ") + e.what());
    }
  }
  std::vector<ListedPoint> plan(const GpuInfo& g) override {
    return listed(build_points(shapes_, sm_list(g), impls_, variants_), g, opt_.timing);
  }
  std::vector<ListedPoint> points(PeerGroup& group) override {
    if (group.processes() > 1) throw ArgError("pkbench_gemm measures one GPU: run it without mpirun");
    const GpuInfo& g0 = group.topology().gpus[0];
    // A GPU without wgmma (sm_100) gets skipped rows for this suite's GEMM, cuBLASLt runs.
    points_ = build_points(shapes_, sm_list(g0), impls_, variants_);
    return listed(points_, g0, opt_.timing);
  }
  void setup(PeerGroup& group, PointResults& results) override {
    if (!nvml::available())
      study_.note("note: NVML unavailable (" + nvml::unavailable_reason() + "): no clock readings");
    run_points(std::make_unique<GemmStudy>(group, results, opt_), opt_.timing.samples);
  }
  std::vector<std::string> columns() const override { return gemm_columns(); }

 private:
  std::vector<int> sm_list(const GpuInfo& g) const {
    std::vector<int> sms = parse_int_list(sms_arg_, g.sm_count);
    for (int n : sms)
      if (n > g.sm_count) throw ArgError("--sms: " + std::to_string(n) + " SMs but GPU0 has " + std::to_string(g.sm_count));
    return sms;
  }
  // Each point, and on a GPU that lacks what its implementation needs, why it is skipped;
  // --list's estimate: the GEMM at a nominal 600 TFLOP/s, timed as a gated point.
  static std::vector<ListedPoint> listed(const std::vector<Point>& points, const GpuInfo& g, const TimingOptions& t) {
    std::vector<ListedPoint> out;
    for (const auto& p : points)
      out.push_back({p.name(), missing_features(needs_of(p.impl), g), planned_point_ms(t, p.shape.flops() / 6e11 * 1e-3)});
    return out;
  }

  StudyMain& study_;
  StudyOptions opt_;
  std::string preset_ = "default", shapes_arg_, sms_arg_, impls_arg_, variants_arg_ = "c1";
  std::vector<Shape> shapes_;
  std::vector<std::string> impls_, variants_;
};

}  // namespace
}  // namespace pk::gemm

PK_STUDY_MAIN(pk::gemm::GemmPlan, "pkbench_gemm", pk::gemm::kStudyDescription, "gemm.csv")
