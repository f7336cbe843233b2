#include "sweeps/targets.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sweeps/format.h"
#include "sweeps/study_schema.h"
#include "microbench/harness/row_reader.h"

namespace fs = std::filesystem;

namespace pk::sweeps {

namespace {
const char* const kCollOrigin = "issue 8 (collectives); results/h200x2/collectives/summary.md";
const char* const kPrimOrigin = "issue: library primitives; results/h200x2/primitives/README.md";
}  // namespace

const std::vector<TargetSpec>& target_specs() {
  static const std::vector<TargetSpec> v = {
      {"transfer.device_vs_ce", "issue: foundation and transfer study",
       "best device-initiated peak / copy-engine best push peak, per direction", ">=", 0.97, ""},
      {"transfer.tma_2k", "issue: foundation and transfer study", "TMA at 2 KiB messages, % of its own peak", ">=", 90,
       " %"},
      {"transfer.tma_sms_90", "issue: foundation and transfer study", "SMs for TMA to reach 90 % of its peak", "<=", 16,
       " SMs"},
      {"transfer.wall_time", "issue: foundation and transfer study",
       "default transfer study wall time including the build", "<=", 240, " s"},
      {"sync.samples", "issue: synchronisation latency study",
       "fewest operations behind any latency median (every level but the clock rows)", ">=", 1000, ""},
      {"sync.clock", "issue: synchronisation latency study",
       "latency rows without a stated clock source and its measured resolution", "<=", 0, " rows"},
      {"peer_modes.transfer", "results/h200x2/transfer/peer-modes/README.md",
       "every mechanism's peak and fewest SMs to 90 % of it, ipc/vmm against single, within", "<=", 2, " %"},
      {"peer_modes.sync", "results/h200x2/transfer/peer-modes/README.md",
       "every cross-GPU latency, ipc/vmm against single, within", "<=", 5, " %"},
      {"gemm.vs_cublas", "issue: fused kernels (GEMM); results/*/gemm/README.md",
       "this suite's GEMM / cuBLASLt TFLOP/s at 8192^3 on the whole GPU", ">=", 0.90, ""},
      {"fused.vs_cublas_nccl", "issue: fused kernels; results/h200x2/fused/README.md",
       "best fused kernel's speedup over cuBLAS then NCCL wherever communication is >= 30 % of that baseline "
       "(lowest such shape)",
       ">=", 1.25, "x"},
      {"fused.vs_best_baseline", "issue: fused kernels; results/h200x2/fused/README.md",
       "best fused kernel against the best baseline of any kind (cuBLAS then NCCL, the copy-engine overlap, ...) "
       "at every shape (lowest such shape)",
       ">=", 0.97, ""},
      {"fused.hidden_k", "issue: fused kernels; results/h200x2/fused/README.md",
       "GEMM+RS non-overlapped communication of the faster fused kernel at K >= 4096 (Table 3; highest such K)", "<=",
       5, " %"},
      // Collectives (bf16, eager and graph, against the best NCCL configuration at each size).
      {"collectives.ar_small", kCollOrigin, "all-reduce speedup over the best NCCL at every size <= 64 KiB (lowest)",
       ">=", 1.3, "x"},
      {"collectives.ar_mid", kCollOrigin, "all-reduce speedup over the best NCCL from 256 KiB to 16 MiB (lowest)", ">=",
       1.5, "x"},
      {"collectives.ar_large", kCollOrigin, "all-reduce speedup over the best NCCL at >= 256 MiB (lowest)", ">=", 1.05,
       "x"},
      {"collectives.ar_busbw", kCollOrigin, "all-reduce bus bandwidth at 1 GiB (lowest launch mode)", ">=", 345,
       " GB/s"},
      {"collectives.ag_all", kCollOrigin, "all-gather speedup over the best NCCL at every size (lowest)", ">=", 1.0,
       "x"},
      {"collectives.rs_all", kCollOrigin, "reduce-scatter speedup over the best NCCL at every size (lowest)", ">=",
       1.0, "x"},
      {"collectives.a2a_all", kCollOrigin, "all-to-all speedup over the best NCCL at every size (lowest)", ">=", 1.0,
       "x"},
      {"collectives.ag_rs_busbw", kCollOrigin,
       "all-gather and reduce-scatter bus bandwidth at 1 GiB (lowest collective and launch mode)", ">=", 345, " GB/s"},
      {"collectives.tensor_dim", kCollOrigin,
       "tensor-dimension all-gather and reduce-scatter (cols) speedup over NCCL then reshape at 64 MiB (lowest)", ">=",
       1.5, "x"},
      // Primitives (one run; the library's fastest row of the same protocol and ordering).
      {"primitives.put_signal", kPrimOrigin,
       "fastest correct data-carrying signal (data, then flag), one-way: library / this suite", ">=", 1.0, "x"},
      {"primitives.signal", kPrimOrigin, "fastest bare signal, one-way: library / this suite", ">=", 1.0, "x"},
      {"primitives.get_l2_resident", kPrimOrigin,
       "fastest dependent remote load, peer L2-resident: library / this suite", ">=", 1.0, "x"},
      {"primitives.get_l2_miss", kPrimOrigin, "fastest dependent remote load, peer L2 miss: library / this suite",
       ">=", 1.0, "x"},
  };
  return v;
}

const TargetSpec& target_spec(const std::string& id) {
  for (const auto& s : target_specs())
    if (s.id == id) return s;
  throw std::logic_error("unknown target '" + id + "'");
}

std::string TargetSpec::text() const {
  std::string v = num(value, value == std::floor(value) ? 0 : 2);
  return op + " " + v + unit;
}

bool TargetSpec::holds(double measured) const { return op == ">=" ? measured >= value : measured <= value; }

std::string TargetResult::sentence() const {
  if (verdict == Verdict::info) return measured + note;
  std::string s = measured + " (target " + target + "): **" + verdict_text(verdict) + "**" + note;
  if (!baseline.empty()) s += "; baseline " + baseline + ", " + check.text();
  return s;
}

std::string TargetResult::check_text() const { return baseline.empty() ? "-" : check.text(); }

std::string targets_table_markdown(const std::vector<TargetResult>& targets) {
  std::ostringstream os;
  os << "| target | stated in | measured | baseline | baseline's cross-check | verdict |\n|---|---|---|---|---|---|\n";
  for (const auto& t : targets) {
    if (t.verdict == Verdict::info) continue;
    const TargetSpec& s = target_spec(t.id);
    os << "| " << s.what << " " << s.text() << " | " << s.origin << " | " << t.measured << t.note << " | "
       << (t.baseline.empty() ? "-" : t.baseline) << " | " << t.check_text() << " | **" << verdict_text(t.verdict)
       << "** |\n";
  }
  return os.str();
}

std::string targets_info_markdown(const std::vector<TargetResult>& targets) {
  std::string out;
  for (const auto& t : targets)
    if (t.verdict == Verdict::info) out += (out.empty() ? "\nAlso measured:\n\n" : "") + std::string("- ") + t.sentence() + "\n";
  return out;
}

std::string target_count_text(const std::vector<TargetResult>& targets) {
  int n = 0, met = 0, missed = 0, tied = 0, defective = 0, unmeasured = 0;
  for (const auto& t : targets) {
    if (t.verdict == Verdict::info) continue;
    ++n;
    met += t.verdict == Verdict::met;
    missed += t.verdict == Verdict::missed;
    tied += t.verdict == Verdict::tie;
    defective += t.verdict == Verdict::baseline_defective;
    unmeasured += t.verdict == Verdict::not_measured;
  }
  std::string s = std::to_string(n) + (n == 1 ? " target: " : " targets: ") + std::to_string(met) + " met, " + std::to_string(missed) + " missed";
  if (tied) s += ", " + std::to_string(tied) + " tied (within noise)";
  if (defective) s += ", " + std::to_string(defective) + " with a baseline off its tool (no speedup claimed)";
  if (unmeasured) s += ", " + std::to_string(unmeasured) + " not measured";
  return s;
}

namespace {

// A value against its spec, measured against `baseline` (whose cross-check is `check`).
// raw: the speedup before a tie was judged as 1.0 (0: no tie involved); where `value` holds
// and `raw` does not, the verdict is a tie.
TargetResult judge_target(const std::string& id, const std::string& measured, double value,
                          const std::string& baseline = "", const CrossCheck& check = {}, double raw = 0) {
  const TargetSpec& s = target_spec(id);
  TargetResult t{id, measured, s.text(), judge(s.holds(value), check, raw > 0 && !s.holds(raw)), ""};
  t.baseline = baseline;
  t.check = check;
  return t;
}

TargetResult unmeasured(const std::string& id, const std::string& why, const std::string& baseline = "") {
  TargetResult t{id, why, target_spec(id).text(), Verdict::not_measured, ""};
  t.baseline = baseline;
  return t;
}

// One table cell per mode after the first: its value over the first's (v[0]), "-" where a
// mode lacks the row. True when every ratio is within `limit` of 1 (and none is missing).
bool ratio_cells(std::ostream& os, const std::vector<double>& v, double limit) {
  bool ok = true;
  for (size_t i = 1; i < v.size(); ++i) {
    if (std::isnan(v[i])) {
      os << " - |";
      ok = false;
      continue;
    }
    const double q = v[i] / v[0];
    ok &= std::fabs(q - 1) <= limit;
    os << " " << num(q, 3) << " |";
  }
  return ok;
}
}  // namespace

std::vector<TargetResult> transfer_targets(const TransferData& d, const std::vector<MechanismSummary>& s,
                                           double elapsed_s) {
  std::vector<TargetResult> out;
  // Device-initiated = measured on SMs (derived from the rows, so a new mechanism needs no list).
  std::set<std::string> device;
  for (const auto& r : d.rows)
    if (r.device_initiated()) device.insert(r.mechanism);
  const MechanismSummary* ce_push = find_summary(s, "ce", "push");
  for (const std::string dir : {"push", "pull", "mixed"}) {
    const MechanismSummary* ce = find_summary(s, "ce", dir);
    const MechanismSummary* best_dev = nullptr;
    for (const auto& x : s)
      if (device.count(x.mechanism) && x.direction == dir && x.pattern == "one_way" &&
          (!best_dev || x.peak_gbps > best_dev->peak_gbps))
        best_dev = &x;
    if (ce_push && best_dev) {
      const double ratio = best_dev->peak_gbps / ce_push->peak_gbps;
      TargetResult t = judge_target("transfer.device_vs_ce",
                             dir + ": best device-initiated mechanism (" + best_dev->mechanism + ", " +
                                 num(best_dev->peak_gbps) + " GB/s) / copy engine best push (" + num(ce_push->peak_gbps) +
                                 " GB/s) = " + num(ratio, 3),
                             ratio, "copy engine, best push peak (ce)");
      if (ce && dir != "push")
        t.note = "; copy engine " + dir + " best " + num(ce->peak_gbps) + " GB/s (ratio " +
                 num(best_dev->peak_gbps / ce->peak_gbps, 3) + ")";
      out.push_back(t);
    }
  }
  for (const std::string m : {"tma_bulk", "tma_tile"})
    for (const std::string dir : {"push", "pull"}) {
      const MechanismSummary* x = find_summary(s, m, dir);
      if (!x) continue;
      const double at2k = best_at(d.rows, m, dir, 2048);
      if (at2k > 0)
        out.push_back(judge_target("transfer.tma_2k",
                            m + " " + dir + ": at 2 KiB messages " + num(at2k) + " GB/s = " +
                                num(100 * at2k / x->peak_gbps) + " % of its peak",
                            100 * at2k / x->peak_gbps));
      if (x->min_sms_90)
        out.push_back(judge_target("transfer.tma_sms_90",
                            m + " " + dir + ": 90 % of its peak with " + std::to_string(x->min_sms_90) + " SMs",
                            x->min_sms_90));
    }
  for (const std::string dir : {"push", "pull"})
    if (const MechanismSummary* ce = find_summary(s, "ce", dir))
      out.push_back(TargetResult{"",
                                 "copy engine " + dir + ": passes 80 % of line rate at " +
                                     (ce->min_message_80_line ? size_text(ce->min_message_80_line)
                                                              : std::string("no message size")) +
                                     " per call; reaches 90 % of its own peak at " + size_text(ce->min_message_90) +
                                     " per call",
                                 "", Verdict::info, ""});
  if (elapsed_s >= 0)
    out.push_back(judge_target("transfer.wall_time",
                        "study wall time including the build: " + num(elapsed_s, 0) + " s", elapsed_s));
  return out;
}

std::vector<TargetResult> sync_targets(const SyncData& d) {
  const SyncRow* fewest = nullptr;
  int unclocked = 0;
  std::string which;
  for (const auto& r : d.rows) {
    if (r.status != "ok" || r.level == "clock") continue;
    if (!fewest || r.samples < fewest->samples) fewest = &r;
    if (r.clock_source.empty() || !(r.clock_resolution_ns > 0)) {
      ++unclocked;
      which += (which.empty() ? "" : ", ") + r.level + " " + r.primitive;
    }
  }
  if (!fewest) return {unmeasured("sync.samples", "no latency row"), unmeasured("sync.clock", "no latency row")};
  return {judge_target("sync.samples",
                       std::to_string(fewest->samples) + " (" + fewest->level + " " + fewest->primitive + " " +
                           fewest->semantics + ")",
                       fewest->samples),
          judge_target("sync.clock",
                       std::to_string(unclocked) + " rows" + (which.empty() ? "" : " (" + which + ")"), unclocked)};
}

std::vector<TargetResult> gemm_targets(const GemmData& d) {
  std::vector<TargetResult> out;
  const int full = gemm_full_sms(d);
  std::set<std::string> variants;
  for (const auto& r : d.rows)
    if (r.impl != "cublaslt") variants.insert(r.variant);
  for (const auto& v : variants) {
    const GemmRow* ref = find_gemm(d, "cublaslt", "", 8192, 8192, 8192, full);
    const GemmRow* pk = find_gemm(d, "pkbench", v, 8192, 8192, 8192, full);
    if (!ref || !pk) {
      out.push_back(unmeasured("gemm.vs_cublas", "variant " + v + " at 8192^3 on " + std::to_string(full) + " SMs",
                               "cuBLASLt (autotuned, same run)"));
      continue;
    }
    const double ratio = pk->tflops / ref->tflops;
    out.push_back(judge_target("gemm.vs_cublas",
                               "GEMM " + v + " at 8192^3 on " + std::to_string(full) + " SMs: " + num(pk->tflops) +
                                   " / cuBLASLt " + num(ref->tflops) + " TFLOP/s = " + num(ratio, 3),
                               ratio, "cuBLASLt (autotuned, same run)"));
  }
  // Every other shape and SM count, as information: the lowest ratio.
  double worst = 1e9;
  std::string where_worst;
  for (const auto& r : d.rows) {
    if (r.impl == "cublaslt") continue;
    const GemmRow* ref = find_gemm(d, "cublaslt", "", r.m, r.n, r.k, r.sms);
    if (!ref || ref->tflops <= 0) continue;
    const double q = r.tflops / ref->tflops;
    if (q < worst) {
      worst = q;
      where_worst = r.variant + " " + r.shape() + " on " + std::to_string(r.sms) + " SMs";
    }
  }
  if (!where_worst.empty())
    out.push_back(TargetResult{"", "lowest ratio to cuBLASLt over every shape and SM count measured: " +
                                       num(worst, 3) + " (" + where_worst + ")",
                               "", Verdict::info, ""});
  return out;
}

std::string fused_op_text(const std::string& op) {
  if (op == "gemm_rs") return "GEMM+RS";
  if (op == "ag_gemm") return "AG+GEMM";
  if (op == "gemm_ar") return "GEMM+AR";
  return op;
}

std::vector<TargetResult> fused_targets(const FusedSummary& f, const std::vector<KSweepRow>& k_sweep) {
  std::vector<TargetResult> out;
  auto shape = [](const FusedShape& s) {
    return fused_op_text(s.op) + " " +
           (s.size_n ? "N = " + std::to_string(s.size_n)
                     : std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
  };
  // Where communication is >= 30 % of cuBLAS then NCCL: the best fused kernel's speedup over it.
  const FusedShape* low = nullptr;
  double low_v = 0;
  std::string all;
  // At every shape: the best fused kernel against the best baseline of any kind (cuBLAS then
  // NCCL, the suite's own copy-engine overlap, ...).
  const FusedShape* low2 = nullptr;
  double low2_v = 0;
  std::string low2_base, below;
  for (const auto& s : f.shapes) {
    if (s.best_fused_us() <= 0) continue;
    if (s.comm_share >= 0.30 && s.cublas_nccl_us > 0) {
      const double v = s.speedup(s.best_fused_us());
      all += (all.empty() ? "" : ", ") + shape(s) + " " + num(v, 3);
      if (!low || v < low_v) low = &s, low_v = v;
    }
    if (s.best_baseline_us() <= 0) continue;
    const double v = speedup(s.best_baseline_us(), s.best_fused_us());
    const std::string who = s.best_baseline();
    if (!target_spec("fused.vs_best_baseline").holds(v))
      below += (below.empty() ? "" : ", ") + shape(s) + " " + num(v, 3) + " against " + who;
    if (!low2 || v < low2_v) low2 = &s, low2_v = v, low2_base = who;
  }
  if (low)
    out.push_back(judge_target("fused.vs_cublas_nccl",
                               "lowest: " + shape(*low) + " " + std::string(low->best_fused()) + " " + num(low_v, 3) +
                                   "x (all: " + all + ")",
                               low_v, "cuBLAS then NCCL (same run)"));
  if (low2)
    out.push_back(judge_target("fused.vs_best_baseline",
                               "lowest: " + shape(*low2) + " " + low2->best_fused() + " against " + low2_base + ": " +
                                   num(low2_v, 3) + (below.empty() ? "" : " (below: " + below + ")"),
                               low2_v, "the fastest baseline at each shape (same run)"));
  // Table 3: at K >= 4096, the non-overlapped share of the faster fused kernel.
  const KSweepRow* worst = nullptr;
  double worst_v = 0;
  std::string ks;
  for (const auto& r : k_sweep) {
    if (r.k < 4096) continue;
    const bool intra = r.intra_us > 0 && (r.inter_us <= 0 || r.intra_us <= r.inter_us);
    const double ratio = intra ? r.intra_ratio : r.inter_ratio;
    if (ratio < 0) continue;
    ks += (ks.empty() ? "" : ", ") + std::string("K = ") + std::to_string(r.k) + ": " + num(100 * ratio, 1) + " % (" +
          (intra ? "intra_sm" : "inter_sm") + ")";
    if (!worst || ratio > worst_v) worst = &r, worst_v = ratio;
  }
  if (worst) out.push_back(judge_target("fused.hidden_k", "GEMM+RS at M = N = " + std::to_string(worst->m) + ": " + ks, 100 * worst_v));
  return out;
}

namespace {

// The points of one target: bf16, the named collectives, sizes in [lo, hi].
std::vector<const CollPoint*> coll_points(const std::vector<CollPoint>& pts, std::initializer_list<const char*> colls,
                                          int64_t lo, int64_t hi) {
  std::vector<const CollPoint*> v;
  for (const auto& p : pts)
    for (const char* c : colls)
      if (p.collective == c && p.dtype == "bf16" && p.bytes >= lo && p.bytes <= hi) v.push_back(&p);
  return v;
}

std::string point_text(const CollPoint& p) { return size_text(static_cast<uint64_t>(p.bytes)) + " " + p.launch_mode; }

// A speedup target over every point: the lowest speedup, the points below the target, the
// weakest cross-check among the baselines it rests on.
TargetResult coll_speedup_target(const std::string& id, const std::vector<const CollPoint*>& pts, CollMethod m) {
  const TargetSpec& spec = target_spec(id);
  const std::string baseline = std::string("best NCCL configuration per size and mode, ") +
                               (m == CollMethod::nccltests ? "nccl-tests method" : "device-time view");
  const CollPoint* low = nullptr;
  std::string below, missing;
  std::vector<CrossCheck> checks;
  bool multi = false;
  for (const CollPoint* p : pts) {
    multi |= p->collective != pts.front()->collective;
    if (p->speedup <= 0) {
      missing += (missing.empty() ? "" : ", ") + point_text(*p);
      continue;
    }
    checks.push_back(p->check);
    if (!spec.holds(judged_speedup(p->outcome, p->speedup)))
      below += (below.empty() ? "" : ", ") + (multi ? p->collective + " " : "") + point_text(*p) + " " +
               num(p->speedup, 2) + " (" + outcome_text(p->outcome) + ")";
    if (!low || judged_speedup(p->outcome, p->speedup) < judged_speedup(low->outcome, low->speedup)) low = p;
  }
  if (!low) return unmeasured(id, "no point with both this suite's and NCCL's rows", baseline);
  TargetResult t = judge_target(id,
                                num(low->speedup, 2) + "x (" + low->collective + " " + point_text(*low) + ", " +
                                    low->ours.impl + " against " + low->nccl.impl + ") over " +
                                    std::to_string(checks.size()) + " points",
                                judged_speedup(low->outcome, low->speedup), baseline, weakest(checks),
                                low->outcome == Outcome::tie ? low->speedup : 0);
  if (!below.empty()) t.note += "; below: " + below;
  if (!missing.empty()) t.note += "; no comparison at " + missing;
  return t;
}

TargetResult coll_busbw_target(const std::string& id, const std::vector<const CollPoint*>& pts) {
  const CollPoint* low = nullptr;
  std::string all;
  for (const CollPoint* p : pts) {
    if (!p->ours.measured()) continue;
    all += (all.empty() ? "" : ", ") + p->collective + " " + p->launch_mode + " " + num(p->ours.busbw, 1) + " (" +
           p->ours.impl + "; best NCCL " + (p->nccl.measured() ? num(p->nccl.busbw, 1) : "-") + ")";
    if (!low || p->ours.busbw < low->ours.busbw) low = p;
  }
  if (!low) return unmeasured(id, "no 1 GiB row of this suite");
  return judge_target(id, num(low->ours.busbw, 1) + " GB/s (" + all + ")", low->ours.busbw);
}

}  // namespace

std::vector<TargetResult> collectives_targets(const std::vector<CollPoint>& pts, CollMethod m) {
  constexpr int64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB, any = INT64_MAX;
  return {coll_speedup_target("collectives.ar_small", coll_points(pts, {"all_reduce"}, 0, 64 * KiB), m),
          coll_speedup_target("collectives.ar_mid", coll_points(pts, {"all_reduce"}, 256 * KiB, 16 * MiB), m),
          coll_speedup_target("collectives.ar_large", coll_points(pts, {"all_reduce"}, 256 * MiB, any), m),
          coll_busbw_target("collectives.ar_busbw", coll_points(pts, {"all_reduce"}, GiB, GiB)),
          coll_speedup_target("collectives.ag_all", coll_points(pts, {"all_gather"}, 0, any), m),
          coll_speedup_target("collectives.rs_all", coll_points(pts, {"reduce_scatter"}, 0, any), m),
          coll_speedup_target("collectives.a2a_all", coll_points(pts, {"all_to_all"}, 0, any), m),
          coll_busbw_target("collectives.ag_rs_busbw", coll_points(pts, {"all_gather", "reduce_scatter"}, GiB, GiB)),
          coll_speedup_target("collectives.tensor_dim",
                              coll_points(pts, {"all_gather_cols", "reduce_scatter_cols"}, 64 * MiB, 64 * MiB), m)};
}

namespace {

struct PrimRow {
  std::string op, style, ordering, protocol, placement, correct, desc;
  Timing t;
  CrossCheck check;
  bool library() const { return style == "nvshmem" || style == "nccl_dev"; }
  // A signal is compared only with a library signal of the same protocol and memory ordering
  // (a library call whose ordering is its own, "library-defined", matches none of ours); a
  // dependent load is compared with the library's load whatever its ordering: the load is the cost.
  bool comparable(const PrimRow& lib) const {
    return protocol == lib.protocol && (ordering == lib.ordering || op == "get");
  }
};

const RowReader<PrimRow>& prim_reader() {
  using R = PrimRow;
  using T = ColumnType;
  static const RowReader<R> r =
      RowReader<R>()
          .text("op", &R::op).text("style", &R::style).text("ordering", &R::ordering, false)
          .text("protocol", &R::protocol, false).text("placement", &R::placement, false)
          .text("protocol_correct", &R::correct, false)
          .also({"scope", T::text, false}).also({"ordering_detail", T::text, false}).also({"memory", T::text, false})
          .also({"value", T::number}).also({"status"}).also({"ref_tool", T::text, false})
          .also({"ref_time_ns", T::number, false}).also({"ref_ratio", T::number, false});
  return r;
}

std::vector<PrimRow> read_primitives(const std::string& path) {
  const CsvTable t = CsvTable::read(path, prim_reader().fields(), checked_as("primitives"));
  const auto row_of = prim_reader().rows(t);
  std::vector<PrimRow> rows;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    PrimRow r = row_of(i);
    // CSVs older than the protocol column name the LL protocol only in the ordering's detail.
    if (r.protocol.empty() && t.text(i, "ordering_detail").substr(0, 11) == "LL protocol") r.protocol = "ll";
    r.t = Timing{t.number(i, "value"), 0, 0};
    r.check = cross_check(std::string(t.text(i, "ref_tool")), t.number(i, "ref_time_ns"), t.number(i, "ref_ratio"));
    r.desc = r.style + " " + std::string(t.text(i, "scope")) + " " + (r.protocol.empty() ? "" : r.protocol + " ") +
             r.ordering + (t.empty(i, "memory") ? "" : " " + std::string(t.text(i, "memory")));
    rows.push_back(r);
  }
  return rows;
}

TargetResult prim_target(const std::string& id, const std::vector<PrimRow>& rows,
                         bool (*wanted)(const PrimRow&, const std::string&), const std::string& arg) {
  const std::string baseline = arg.rfind("peer_", 0) == 0
                                   ? "fastest library load (NVSHMEM, NCCL device API), same placement"
                                   : "fastest library row (NVSHMEM, NCCL device API) of the same protocol and ordering";
  std::vector<const PrimRow*> ours;
  for (const auto& r : rows)
    if (r.style == "pk" && r.t.measured() && wanted(r, arg)) ours.push_back(&r);
  std::sort(ours.begin(), ours.end(), [](auto a, auto b) { return a->t.median < b->t.median; });
  // This suite's fastest row that any library row is comparable with.
  for (const PrimRow* p : ours) {
    std::vector<Candidate> mine{{p->desc, p->t, {}, 0}}, libs;
    std::vector<const PrimRow*> lib_rows;
    for (const auto& r : rows)
      if (r.library() && r.t.measured() && wanted(r, arg) && p->comparable(r)) {
        libs.push_back({r.desc, r.t, r.check, static_cast<int>(lib_rows.size())});
        lib_rows.push_back(&r);
      }
    if (libs.empty()) continue;
    const PointVerdict v = compare_best(mine, libs);
    const PrimRow& lib = *lib_rows[v.base.fastest->index];
    TargetResult t = judge_target(id,
                                  num(p->t.median, 0) + " ns (" + p->desc + ") against " + num(lib.t.median, 0) +
                                      " ns (" + lib.desc + "): " + num(v.speedup, 2) + "x, " + outcome_text(v.outcome),
                                  judged_speedup(v), baseline, v.check, v.outcome == Outcome::tie ? v.speedup : 0);
    if (p != ours.front())
      t.note = "; this suite's fastest row (" + num(ours.front()->t.median, 0) + " ns, " + ours.front()->desc +
               ") has no library row of its protocol and ordering";
    return t;
  }
  return unmeasured(id, "no pair of rows of the same protocol and ordering", baseline);
}

}  // namespace

std::vector<TargetResult> primitives_targets(const std::string& path) {
  const std::vector<PrimRow> rows = read_primitives(path);
  auto op_correct = [](const PrimRow& r, const std::string& op) {
    return r.op == op && (op != "put_signal" || r.correct == "yes");
  };
  auto get_at = [](const PrimRow& r, const std::string& placement) { return r.op == "get" && r.placement == placement; };
  return {prim_target("primitives.put_signal", rows, op_correct, "put_signal"),
          prim_target("primitives.signal", rows, op_correct, "signal"),
          prim_target("primitives.get_l2_resident", rows, get_at, "peer_l2_resident"),
          prim_target("primitives.get_l2_miss", rows, get_at, "peer_l2_miss")};
}

ModeResults load_mode(const std::string& name, const std::string& dir) {
  ModeResults m;
  m.name = name;
  m.dir = dir;
  if (fs::exists(dir + "/transfer.csv")) {
    m.transfer = read_transfer(dir + "/transfer.csv");
    m.summary = summarize_mechanisms(m.transfer.rows);
    m.has_transfer = true;
  }
  if (fs::exists(dir + "/sync.csv")) {
    m.sync = read_sync(dir + "/sync.csv");
    m.has_sync = true;
  }
  if (fs::exists(dir + "/timing.txt")) {
    std::ifstream f(dir + "/timing.txt");
    std::stringstream s;
    s << f.rdbuf();
    m.timing = s.str();
  }
  return m;
}

namespace {

// The rows of one peer-mode comparison: how many were checked, which were outside the target.
struct ModeTally {
  int checked = 0, missed = 0;
  std::string misses;
  void count(bool ok, const std::string& what) {
    ++checked;
    if (ok) return;
    ++missed;
    misses += (misses.empty() ? "" : ", ") + what;
  }
  // The target's verdict line, `what` naming the rows ("mechanism rows", "latencies").
  TargetResult result(const char* id, const TargetSpec& spec, const std::string& head, const char* what) const {
    return TargetResult{id, head + std::to_string(checked - missed) + " of " + std::to_string(checked) + " " + what +
                                " within",
                        spec.text(), missed ? Verdict::missed : Verdict::met,
                        misses.empty() ? "" : " (outside: " + misses + ")"};
  }
};

// The columns shared by both tables: each mode's value, then each mode against the first.
void mode_columns_head(std::ostream& os, const std::vector<ModeResults>& modes, const char* unit) {
  for (const auto& m : modes) os << " " << m.name << unit << " |";
  for (size_t i = 1; i < modes.size(); ++i) os << " " << modes[i].name << " / " << modes[0].name << " |";
}

ModeTally transfer_modes_table(std::ostream& os, const std::vector<ModeResults>& modes, const TargetSpec& spec) {
  const ModeResults& ref = modes[0];
  const double lim = spec.value / 100;
  ModeTally tally;
  os << "## Transfer: peak and SMs to 90 % of peak\n\n| direction | pattern | mechanism |";
  mode_columns_head(os, modes, " GB/s");
  os << " SMs to 90 % (";
  for (size_t i = 0; i < modes.size(); ++i) os << (i ? " / " : "") << modes[i].name;
  os << ") | within " << num(spec.value, 0) << " % |\n|---|---|---|";
  for (size_t i = 0; i < 2 * modes.size() - 1; ++i) os << "---:|";
  os << "---|---|\n";
  for (const auto& r : ref.summary) {
    std::vector<const MechanismSummary*> at;
    for (const auto& m : modes) at.push_back(find_summary(m.summary, r.mechanism, r.direction, r.pattern));
    os << "| " << r.direction << " | " << r.pattern << " | " << r.mechanism << " |";
    for (const auto* x : at) os << " " << (x ? num(x->peak_gbps, 1) : "-") << " |";
    std::vector<double> v;
    for (const auto* x : at) v.push_back(x ? x->peak_gbps : std::nan(""));
    bool ok = ratio_cells(os, v, lim);
    os << " ";
    for (size_t i = 0; i < at.size(); ++i) {
      os << (i ? " / " : "") << (at[i] && at[i]->min_sms_90 ? std::to_string(at[i]->min_sms_90) : "-");
      if (i && at[i] && r.min_sms_90 && at[i]->min_sms_90)
        ok &= std::abs(at[i]->min_sms_90 - r.min_sms_90) <= lim * r.min_sms_90;
    }
    tally.count(ok, r.mechanism + " " + r.direction + " " + r.pattern);
    os << " | " << (ok ? "yes" : "**no**") << " |\n";
  }
  return tally;
}

ModeTally sync_modes_table(std::ostream& os, const std::vector<ModeResults>& modes, const TargetSpec& spec) {
  ModeTally tally;
  os << "\n## Cross-GPU synchronisation (one-way, median)\n\n| primitive | semantics | placement |";
  mode_columns_head(os, modes, "");
  os << " within " << num(spec.value, 0) << " % |\n|---|---|---|";
  for (size_t i = 0; i < 2 * modes.size() - 1; ++i) os << "---:|";
  os << "---|\n";
  for (const auto& r : modes[0].sync.rows) {
    if (r.level != "cross_gpu" || r.status != "ok") continue;
    os << "| " << r.primitive << " x" << r.participants << " | " << r.semantics << " | " << r.placement << " |";
    std::vector<const SyncRow*> at;
    for (const auto& m : modes)
      at.push_back(find_sync(m.sync.rows, r.level, r.primitive, r.scope, r.semantics, r.placement, r.participants));
    for (const auto* x : at) os << " " << (x ? num(x->one_way_ns, 0) + " ns" : "-") << " |";
    std::vector<double> v;
    for (const auto* x : at) v.push_back(x ? x->one_way_ns : std::nan(""));
    const bool ok = ratio_cells(os, v, spec.value / 100);
    tally.count(ok, r.primitive + " " + r.semantics);
    os << " " << (ok ? "yes" : "**no**") << " |\n";
  }
  return tally;
}

}  // namespace

std::string peer_modes_markdown(const std::vector<ModeResults>& modes, std::vector<TargetResult>* targets) {
  if (modes.empty()) throw std::logic_error("peer_modes_markdown: no modes");
  const ModeResults& ref = modes[0];
  const TargetSpec& tspec = target_spec("peer_modes.transfer");
  const TargetSpec& sspec = target_spec("peer_modes.sync");
  std::ostringstream os;
  os << "# Peer modes side by side\n\nGenerated by `pkbench_peer_modes` from the CSVs of one run per peer mode: the same "
        "studies with the GPUs' memory shared by peer access in one process (`single`), by CUDA IPC handles between "
        "one process per GPU (`ipc`), and by cuMem VMM allocations exported as file descriptors (`vmm`). Ratios are "
        "to `"
     << ref.name << "`. Targets: every mechanism's peak and its fewest SMs to 90 % of that peak within "
     << num(tspec.value, 0) << " %, and every cross-GPU latency within " << num(sspec.value, 0) << " %.\n\n";
  const ModeTally t = transfer_modes_table(os, modes, tspec);
  const ModeTally s = sync_modes_table(os, modes, sspec);
  os << "\n## Run times\n\n";
  for (const auto& m : modes)
    if (!m.timing.empty()) os << "- " << m.name << ": " << m.timing << (m.timing.back() == '\n' ? "" : "\n");
  const int checked = t.checked + s.checked, missed = t.missed + s.missed;
  os << "\n" << checked - missed << " of " << checked << " comparisons within their target.\n";
  if (targets) {
    std::string names;
    for (size_t i = 1; i < modes.size(); ++i) names += (i > 1 ? "/" : "") + modes[i].name;
    const std::string against = names + " against " + ref.name + ": ";
    if (t.checked) targets->push_back(t.result("peer_modes.transfer", tspec, "transfer, " + against, "mechanism rows"));
    if (s.checked) targets->push_back(s.result("peer_modes.sync", sspec, "cross-GPU sync, " + against, "latencies"));
  }
  return os.str();
}

}  // namespace pk::sweeps
