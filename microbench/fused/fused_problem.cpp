#include "microbench/fused/fused_problem.h"

#include <algorithm>
#include <stdexcept>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/gemm/gemm_data.h"
#include "microbench/fused/schedule.h"

namespace pk::fused {

namespace {
// The operators, declared once: their order, names and descriptions.
struct OpInfo {
  Op op;
  const char* name;
  const char* description;
};
constexpr OpInfo kOps[] = {
    {Op::gemm_rs, "gemm_rs", "GEMM + reduce-scatter: local N x N x N/w, C's row shard r summed over GPUs on GPU r"},
    {Op::ag_gemm, "ag_gemm", "all-gather + GEMM: A's row shards gathered, local N x N/w x N"},
    {Op::gemm_ar, "gemm_ar", "GEMM + all-reduce: local N x N x N/w, the sum of C on every GPU"},
};
const OpInfo& info(Op op) {
  for (const OpInfo& i : kOps)
    if (i.op == op) return i;
  throw std::logic_error("operator " + std::to_string(static_cast<int>(op)) + " is not in kOps");
}
}  // namespace

const std::vector<Op>& all_ops() {
  static const std::vector<Op> v = [] {
    std::vector<Op> out;
    for (const OpInfo& i : kOps) out.push_back(i.op);
    return out;
  }();
  return v;
}

std::string op_name(Op op) { return info(op).name; }

Op parse_op(const std::string& s) {
  std::string known;
  for (const OpInfo& i : kOps) {
    if (i.name == s) return i.op;
    known += (known.empty() ? "" : ", ") + std::string(i.name);
  }
  throw ArgError("--ops: unknown operator '" + s + "' (known: " + known + ")");
}

std::string op_description(Op op) { return info(op).description; }

Shape paper_shape(Op op, int size_n, int world) {
  const int part = world > 0 ? size_n / world : 0;
  return op == Op::ag_gemm ? Shape{size_n, part, size_n} : Shape{size_n, size_n, part};
}

int shard_rows(Op, const Shape& s, int world) { return s.m / world; }

void check_shape(Op op, const Shape& s, int world, const std::string& flag) {
  std::string why;
  auto add = [&](const std::string& w) { why += (why.empty() ? "" : "; ") + w; };
  if (s.m % kTileM) add("M=" + std::to_string(s.m) + " is not a multiple of the tile's " + std::to_string(kTileM) + " rows");
  if (s.n % kTileN) add("N=" + std::to_string(s.n) + " is not a multiple of the tile's " + std::to_string(kTileN) + " columns");
  if (s.k % kTileK) add("K=" + std::to_string(s.k) + " is not a multiple of the tile's K step " + std::to_string(kTileK));
  if (world > 0 && s.m % kTileM == 0 && s.m % (kTileM * world))
    add("M=" + std::to_string(s.m) + " does not split into " + std::to_string(world) + " row shards of whole " +
        std::to_string(kTileM) + "-row tiles (" + (op == Op::ag_gemm ? "A" : "C") + "'s rows are sharded over the GPUs)");
  if (!why.empty())
    throw ArgError(flag + ": " + op_name(op) + " " + s.str() +
                   (world > 0 ? " on " + std::to_string(world) + " GPU" + (world > 1 ? "s" : "") : "") + ": " + why);
}

void check_size(Op op, int size_n, int world, const std::string& flag) {
  if (size_n < 1) throw ArgError(flag + ": N must be positive, got " + std::to_string(size_n));
  if (world > 0 && size_n % world)
    throw ArgError(flag + ": N=" + std::to_string(size_n) + " is not divisible by the GPU count " +
                   std::to_string(world) + " (the paper's local shapes take N/" + std::to_string(world) + ")");
  check_shape(op, paper_shape(op, size_n, world > 0 ? world : 1), world, flag + " (N=" + std::to_string(size_n) + ")");
}

double collective_bytes(Op op, const Shape& s, int world) {
  const double part = double(world - 1) / world;
  switch (op) {
    case Op::gemm_rs: return part * s.m * double(s.n) * 2;
    case Op::ag_gemm: return part * s.m * double(s.k) * 2;
    case Op::gemm_ar: return 2 * part * s.m * double(s.n) * 2;
  }
  return 0;
}

double intra_sm_bytes(Op op, const Shape& s, int world) {
  switch (op) {
    case Op::gemm_rs: return collective_bytes(op, s, world);
    case Op::ag_gemm: return collective_bytes(op, s, world) * (s.n / kTileN);
    case Op::gemm_ar: return double(world - 1) * s.m * double(s.n) * 2;
  }
  return 0;
}

// ---- knobs and schedules ----
namespace knobs {
const Knob comm_sms{"comm_sms", "comm-sms", "SMs",
                    "SMs given to communication: inter_sm's communicator blocks (the GEMM runs on the rest); "
                    "cublas_nccl_overlap's NCCL CTAs (cuBLASLt's SM target is the rest)",
                    1, 64};
const Knob chunks{"chunks", "chunks", "chunks",
                  "pipeline chunks per row shard: cublas_nccl_overlap's GEMM/NCCL steps, ce_overlap's copies and flags",
                  1, 64};
}  // namespace knobs

std::string kind_name(Kind k) {
  switch (k) {
    case Kind::component: return "component";
    case Kind::baseline: return "baseline";
    case Kind::fused: return "fused";
  }
  return "?";
}

std::string overlap_of(const Schedule& s) {
  if (s.kind != Kind::fused) return kind_name(s.kind);
  return s.overlap.empty() ? s.name : s.overlap;
}

bool Schedule::supports(Op op) const { return std::find(ops.begin(), ops.end(), op) != ops.end(); }
bool Schedule::has_knob(const std::string& n) const {
  return std::any_of(knobs.begin(), knobs.end(), [&](const KnobUse& u) { return u.knob->name == n; });
}

const std::vector<Schedule>& schedules() {
  static const std::vector<Schedule> v = [] {
    std::vector<Schedule> out;
#define PK_FUSED_SCHEDULE(NAME)               \
  out.push_back(declare_schedule_##NAME());  \
  out.back().name = #NAME;
#include "microbench/fused/schedule_list.h"
#undef PK_FUSED_SCHEDULE
    std::stable_sort(out.begin(), out.end(), [](const Schedule& x, const Schedule& y) { return x.kind < y.kind; });
    return out;
  }();
  return v;
}

const Schedule* find_schedule(const std::string& name) { return named(schedules(), name); }

const Schedule& schedule(const std::string& name) {
  if (const Schedule* s = find_schedule(name)) return *s;
  std::string known;
  for (const auto& n : schedule_names()) known += (known.empty() ? "" : ", ") + n;
  throw ArgError("--schedules: unknown schedule '" + name + "' (known: " + known + ")");
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> v;
  for (const Schedule& s : schedules()) v.push_back(s.name);
  return v;
}

const std::vector<const Knob*>& all_knobs() {
  static const std::vector<const Knob*> v = [] {
    std::vector<const Knob*> out;
    for (const Schedule& s : schedules())
      for (const KnobUse& u : s.knobs)
        if (std::find(out.begin(), out.end(), u.knob) == out.end()) out.push_back(u.knob);
    return out;
  }();
  return v;
}

std::vector<int> parse_knob_list(const Knob& k, const std::string& list) {
  std::vector<int> v;
  try {
    v = parse_int_list(list, k.hi);
  } catch (const ArgError& e) {
    throw ArgError("--" + k.flag + ": " + e.what());
  }
  if (v.empty()) throw ArgError("--" + k.flag + ": no value given");
  for (int x : v)
    if (x < k.lo || x > k.hi)
      throw ArgError("--" + k.flag + "=" + std::to_string(x) + ": " + k.name + " must be in " + std::to_string(k.lo) +
                     " .. " + std::to_string(k.hi));
  return v;
}

int Point::knob(const std::string& n, int missing) const {
  auto it = knobs.find(n);
  return it == knobs.end() ? missing : it->second;
}

std::string Point::name() const {
  std::string s = "fused/" + op_name(op) + "/" + schedule + "/" + shape.str();
  for (const Knob* k : all_knobs())
    if (knobs.count(k->name)) s += "/" + k->name + ":" + std::to_string(knobs.at(k->name));
  return s;
}

std::vector<Point> build_points(const GridSpec& g, int world) {
  std::vector<Point> out;
  for (Op op : g.ops) {
    std::vector<std::pair<Shape, int>> shapes;
    for (int n : g.sizes) {
      check_size(op, n, world, "--sizes");
      const Shape s = paper_shape(op, n, world > 0 ? world : 1);
      if (std::none_of(shapes.begin(), shapes.end(), [&](const auto& x) { return x.first == s; })) shapes.push_back({s, n});
    }
    for (const Shape& s : g.shapes) {
      check_shape(op, s, world, "--shapes");
      if (std::none_of(shapes.begin(), shapes.end(), [&](const auto& x) { return x.first == s; })) shapes.push_back({s, 0});
    }
    for (const auto& [shape, n] : shapes)
      for (const Schedule& sch : schedules()) {  // run order, whatever order --schedules named them in
        if (!sch.supports(op) || std::find(g.schedules.begin(), g.schedules.end(), sch.name) == g.schedules.end())
          continue;
        std::vector<std::map<std::string, int>> combos(1);
        for (const KnobUse& u : sch.knobs) {
          auto it = g.knob_values.find(u.knob->name);
          const std::vector<int> vals = it != g.knob_values.end() ? it->second : parse_knob_list(*u.knob, u.default_list);
          std::vector<std::map<std::string, int>> next;
          for (const auto& c : combos)
            for (int v : vals) {
              auto d = c;
              d[u.knob->name] = v;
              next.push_back(d);
            }
          combos = next;
        }
        for (const auto& c : combos) out.push_back(Point{op, sch.name, shape, n, c, {}});
      }
  }
  return out;
}

const std::vector<std::string>& fused_columns() {
  static const std::vector<std::string> c = [] {
    // op, impl, overlap, gpus, m, n, k, comm_sms, time_us_*, tflops, status: what the sweeps'
    // fused tuning table reads (microbench/fused/fused_analysis.h).
    std::vector<std::string> v = {"study", "op", "impl", "overlap", "gpus", "size_n", "m", "n", "k"};
    for (const Knob* k : all_knobs()) v.push_back(k->name);
    for (const char* x :
         {"compute_sms", "comm_blocks", "group_m", "tile_order", "flops", "comm_bytes", "working_set_bytes",
          "iters_per_sample", "samples", "time_us_median", "time_us_min", "time_us_max", "cv", "tflops",
          "tflops_best", "gemm_us", "comm_ratio", "comm_share", "algo", "rel_fro_err", "max_rel_err", "wrong", "elem_tol", "verified", "sm_clock_mhz_start",
          "sm_clock_mhz_end", "sm_clock_mhz_max", "tuning", "status", "error",
          // PyTorch's figure for the row (pkbench_torch_ref fills them; empty as written here)
          "ref_tool", "ref_time_us", "ref_ratio"})
      v.push_back(x);
    for (const auto& m : metadata_columns()) v.push_back(m);
    return v;
  }();
  return c;
}

const std::vector<std::string>& fused_read_columns() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> v = fused_columns();
    for (const char* x : {"speedup_vs_cublas_nccl", "speedup_vs_pk_then_coll", "speedup_vs_cublas_nccl_overlap",
                          "speedup_vs_ce_overlap", "best_baseline", "best_baseline_config", "speedup_vs_best_baseline"})
      v.push_back(x);
    return v;
  }();
  return c;
}

// Each GPU's partial is rounded to bf16 (at most 2^-9 of itself) and every add at the
// destination rounds again, against a reference rounded once. The first H200x2 run measured a
// worst element of 0.0166 x max(|ref|, rms(ref)) on 2 GPUs (16 Mi elements, relative Frobenius
// error 0.00286, the same bits from NCCL, our collective and every fused kernel): over the
// GEMM's own 1/64. So twice the GEMM's tolerance per pair of terms: 2 GPUs 1/32, 4 1/16,
// 8 1/8. A lost or doubled contribution is off by about |partial| ~ rms / sqrt(w): still caught.
double reduction_tolerance(int world) { return gemm::kElemTol * std::max(2.0, double(world)); }

WarmupChoice point_warmup(const WarmupPolicy& w, const WarmupState& s) {
  auto full = [&](const std::string& why) { return WarmupChoice{w.full_ms, "full: " + why}; };
  if (w.every_point) return full("every point");
  if (s.first_point) return full("first point");
  if (w.gap_ms > 0) return full("after the gap");
  if (s.shape_changed) return full("new operator or shape");
  if (s.idle_ms > w.max_idle_ms) return full("idle " + fmt_num(s.idle_ms, 3) + " ms");
  // Never longer than the full one: --warmup-ms=0 asks for none.
  return {std::min(w.short_ms, w.full_ms), "short"};
}

}  // namespace pk::fused
