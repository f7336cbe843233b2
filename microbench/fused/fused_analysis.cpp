#include "microbench/fused/fused_analysis.h"

#include "microbench/harness/format.h"
#include "microbench/harness/row_reader.h"
#include "microbench/harness/verdict.h"
#ifdef PKBENCH_HAVE_STUDY_COLUMNS
#include "microbench/fused/fused_problem.h"
#endif

#include <pkbench/tuning.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace pk::fused {

// How pkbench_compare matches and measures this study's points (study_measure.h; registered
// by COMPARE on the study's line of sweeps/CMakeLists.txt).
StudyMeasure fused_measure() {
  return with_timing_columns({.key = {"op", "overlap", "impl", "m", "n", "k", "gpus", "comm_sms"},
                              .group = {"op", "overlap"},
                              .metric = "time_us_median",
                              .unit = "us",
                              .higher_better = false});
}

namespace {

struct FusedRow {
  std::string op, overlap, impl, status, error, peer_mode, tuning, git_commit, ref_tool;
  double ref_us = 0;  // the reference tool's time (PyTorch's, torch_ref.h); 0: none
  int64_t m = 0, n = 0, k = 0, gpus = 0, comm_sms = 0, size_n = 0;
  double t = 0, tmin = 0, tmax = 0, tflops = 0;
  double comm_share = 0, comm_ratio = 0;  // NaN: not recorded
  size_t line = 0;
  bool ok() const { return status == "ok"; }
  bool fused() const { return overlap == "intra_sm" || overlap == "inter_sm"; }
  double lo() const { return tmin > 0 ? tmin : t; }
  double hi() const { return tmax > 0 ? tmax : t; }
  // "intra_sm", "inter_sm comm_sms=8": a fused row's configuration.
  std::string config() const { return impl == "inter_sm" ? impl + " comm_sms=" + std::to_string(comm_sms) : impl; }
  auto point() const { return std::make_tuple(op, gpus, m, n, k); }
};

// The columns the tuning table and the summaries read. Optional: size_n, comm_share and
// comm_ratio (the summaries'), cv, and the metadata.
const RowReader<FusedRow>& fused_reader() {
  using R = FusedRow;
  const double kNone = std::nan("");
  static const RowReader<R> r =
      RowReader<R>()
          .text("op", &R::op).text("overlap", &R::overlap).text("impl", &R::impl)
          .integer("m", &R::m).integer("n", &R::n).integer("k", &R::k).integer("gpus", &R::gpus)
          .integer("comm_sms", &R::comm_sms).number("time_us_median", &R::t).number("time_us_min", &R::tmin)
          .number("time_us_max", &R::tmax).also({"cv", ColumnType::number, false}).number("tflops", &R::tflops)
          .text("status", &R::status).text("peer_mode", &R::peer_mode, false).text("tuning", &R::tuning, false)
          .integer("size_n", &R::size_n, false).number("comm_share", &R::comm_share, false, kNone)
          .number("comm_ratio", &R::comm_ratio, false, kNone).text("git_commit", &R::git_commit, false)
          .text("error", &R::error, false).text("ref_tool", &R::ref_tool, false)
          .number("ref_time_us", &R::ref_us, false).line(&R::line);
  return r;
}

struct FusedRows {
  Machine machine;
  std::vector<FusedRow> rows;  // every status
};
// The header checked against the study's own declaration where this build has it
// (pkbench_fused_schema: the study configured), else against the reader's fields only.
ReadOptions fused_read_options() {
  ReadOptions o;
  o.study = "fused";
#ifdef PKBENCH_HAVE_STUDY_COLUMNS
  static const StudySchemas own{
      declared_study("fused", pk::fused::fused_read_columns(), "pk::fused::fused_read_columns() (pkbench_fused_schema)")};
  o.schemas = &own;
#endif
  return o;
}

FusedRows read_fused(const std::string& path) {
  const CsvTable t = CsvTable::read(path, fused_reader().fields(), fused_read_options());
  const auto row_of = fused_reader().rows(t);
  FusedRows d{t.machine(), {}};
  d.rows.reserve(t.rows());
  for (size_t i = 0; i < t.rows(); ++i) d.rows.push_back(row_of(i));
  return d;
}

bool simpler(const FusedRow& a, const FusedRow& b) {
  if (a.comm_sms != b.comm_sms) return a.comm_sms < b.comm_sms;
  if (a.overlap != b.overlap) return a.overlap == "intra_sm";
  if (a.impl != b.impl) return a.impl < b.impl;
  return a.t < b.t;
}

}  // namespace

namespace {

TuningTable fused_table_columns(const std::string& path) {
  using K = CellKind;
  TuningTable tt;
  tt.name = "fused";
  tt.doc =
      "Fused-kernel overlap per machine, operator, GPU count and local GEMM shape (exact match). Rows whose "
      "min..max overlaps the fastest's are tied; among them the fewest communication SMs win (intra-SM = 0), then "
      "intra-SM. Baseline rows are never chosen; speedup_vs_baseline = best baseline median / chosen median.";
  tt.columns = {{"machine", K::text, "machine key, e.g. h200x2"},
                {"op", K::text, "gemm_rs, ag_gemm, gemm_ar"},
                {"gpus", K::integer, "GPUs taking part"},
                {"m", K::integer, "local GEMM M"},
                {"n", K::integer, "local GEMM N"},
                {"k", K::integer, "local GEMM K"},
                {"candidates", K::integer, "fused configurations measured (intra-SM and every inter-SM split)"},
                {"tied", K::integer, "configurations within the fastest's min..max"},
                {"overlap", K::text, "chosen: intra_sm or inter_sm"},
                {"impl", K::text, "chosen implementation"},
                {"comm_sms", K::integer, "chosen communication SMs (0 for intra-SM)"},
                {"time_us", K::number, "chosen median time"},
                {"tflops", K::number, "chosen TFLOP/s"},
                {"intra_time_us", K::number, "best intra-SM median (0: not measured)"},
                {"inter_time_us", K::number, "best inter-SM median (0: not measured)"},
                {"inter_best_comm_sms", K::integer, "communication SMs of the best inter-SM split"},
                {"intra_speedup_vs_inter", K::number, "best inter-SM median / best intra-SM median (0: n/a)"},
                {"fastest_overlap", K::text, "overlap of the fastest median"},
                {"fastest_comm_sms", K::integer, "its communication SMs"},
                {"fastest_spread_pct", K::number, "its max - min as % of its median"},
                {"runner_up_gap_pct", K::number, "best configuration outside the noise band: its median / fastest - 1, in %"},
                {"baseline_impl", K::text, "fastest baseline (\"\": none measured)"},
                {"speedup_vs_baseline", K::number, "its median / chosen median (0: none)"},
                {"source", K::text, "CSV file and line of the chosen row"}};
  tt.keys = {"machine", "op", "gpus", "m", "n", "k"};
  tt.sources = {path};
  return tt;
}

// The row of one point (its ok rows), or none when no fused configuration was measured there.
std::vector<Cell> fused_choice(const std::vector<const FusedRow*>& all, const Machine& machine,
                               const std::string& path) {
  std::vector<const FusedRow*> rs;
  const FusedRow* base = nullptr;
  const FusedRow* intra = nullptr;
  const FusedRow* inter = nullptr;
  for (const FusedRow* r : all) {
    if (r->overlap == "baseline") {
      if (!base || r->t < base->t) base = r;
      continue;
    }
    if (!r->fused()) continue;  // "component": a GEMM or collective alone
    rs.push_back(r);
    const FusedRow*& best = r->overlap == "intra_sm" ? intra : inter;
    if (!best || r->t < best->t) best = r;
  }
  if (rs.empty()) return {};
  const FusedRow* fastest = *std::min_element(rs.begin(), rs.end(), [](auto a, auto b) { return a->t < b->t; });
  std::vector<const FusedRow*> tied;
  const FusedRow* runner = nullptr;
  for (const FusedRow* r : rs) {
    if (bands_overlap(r->lo(), r->hi(), fastest->lo(), fastest->hi())) tied.push_back(r);
    else if (!runner || r->t < runner->t) runner = r;
  }
  const FusedRow* c = *std::min_element(tied.begin(), tied.end(), [](auto a, auto b) { return simpler(*a, *b); });
  return {tuning_machine_key(machine, c->peer_mode, c->gpus),
          c->op,
          c->gpus,
          c->m,
          c->n,
          c->k,
          static_cast<int64_t>(rs.size()),
          static_cast<int64_t>(tied.size()),
          c->overlap,
          c->impl,
          c->comm_sms,
          c->t,
          c->tflops,
          intra ? Cell{intra->t} : Cell{},
          inter ? Cell{inter->t} : Cell{},
          inter ? Cell{inter->comm_sms} : Cell{},
          intra && inter ? Cell{speedup(inter->t, intra->t)} : Cell{},
          fastest->overlap,
          fastest->comm_sms,
          100 * (fastest->hi() - fastest->lo()) / fastest->t,
          runner ? Cell{100 * (runner->t / fastest->t - 1)} : Cell{},
          base ? Cell{base->impl} : Cell{},
          base ? Cell{speedup(base->t, c->t)} : Cell{},
          path + ":" + std::to_string(c->line)};
}

}  // namespace

TuningTable fused_tuning(const std::string& path) {
  const FusedRows d = read_fused(path);
  TuningTable tt = fused_table_columns(path);
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, std::vector<const FusedRow*>> groups;
  for (const auto& r : d.rows)
    if (r.ok()) groups[r.point()].push_back(&r);
  for (const auto& [key, all] : groups)
    if (auto row = fused_choice(all, d.machine, path); !row.empty()) tt.rows.push_back(std::move(row));
  return tt;
}

FusedSummary fused_summary(const std::string& path) {
  const FusedRows d = read_fused(path);
  FusedSummary s;
  s.path = path;
  s.rows = d.rows.size();
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, size_t> index;
  for (const FusedRow& r : d.rows) {
    if (s.git_commit.empty()) s.git_commit = r.git_commit;
    if (s.peer_mode.empty()) s.peer_mode = r.peer_mode;
    if (!r.ok()) continue;
    ++s.ok;
    auto [it, fresh] = index.emplace(r.point(), s.shapes.size());
    if (fresh) {
      FusedShape sh;
      sh.op = r.op;
      sh.m = r.m, sh.n = r.n, sh.k = r.k, sh.gpus = r.gpus;
      sh.size_n = r.size_n;
      s.shapes.push_back(sh);
    }
    FusedShape& sh = s.shapes[it->second];
    if (r.ref_us > 0 && r.ref_tool.find(" fused_") != std::string::npos)  // PyTorch's async TP
      sh.torch_us = r.ref_us;
    if (r.impl == "cublas_nccl") {
      if (sh.cublas_nccl_us <= 0 || r.t < sh.cublas_nccl_us) {
        sh.cublas_nccl_us = r.t;
        // The README's measure: its comm_ratio, (cuBLAS then NCCL - our GEMM alone) / cuBLAS then
        // NCCL; else comm_share, NCCL alone / (cuBLASLt alone + NCCL alone).
        if (!std::isnan(r.comm_ratio)) sh.comm_share = r.comm_ratio;
        else if (!std::isnan(r.comm_share)) sh.comm_share = r.comm_share;
      }
    } else if (r.overlap == "baseline") {
      if (sh.baseline_us <= 0 || r.t < sh.baseline_us) sh.baseline_us = r.t, sh.baseline_impl = r.impl;
    } else if (r.overlap == "intra_sm") {
      if (sh.intra_us <= 0 || r.t < sh.intra_us) sh.intra_us = r.t;
    } else if (r.overlap == "inter_sm") {
      if (sh.inter_us <= 0 || r.t < sh.inter_us) sh.inter_us = r.t, sh.inter_comm_sms = r.comm_sms;
    }
  }
  return s;
}

std::vector<FusedTuned> fused_tuned_points(const std::string& path) {
  const FusedRows d = read_fused(path);
  std::vector<FusedTuned> out;
  for (const FusedRow& q : d.rows) {
    if (q.impl != "tuned") continue;
    FusedTuned p;
    std::tie(p.op, p.gpus, p.m, p.n, p.k) = q.point();
    p.answer = q.ok() ? q.tuning : q.status + ": " + q.error;
    if (q.ok()) p.tuned_us = q.t;
    // "... default=inter_sm/comm_sms:16" (microbench/fused/fused_tuned.cpp): the answered
    // schedule at its untuned knobs, written as the point names write knobs.
    std::string dflt, word;
    for (std::istringstream is{q.tuning}; is >> word;)
      if (word.rfind("default=", 0) == 0) dflt = word.substr(8);
    const std::string dflt_impl = dflt.substr(0, dflt.find('/'));
    const size_t at = dflt.find("/comm_sms:");
    const int64_t dflt_sms = at == std::string::npos ? 0 : std::atoll(dflt.c_str() + at + 10);  // 0: none (intra_sm)
    for (const FusedRow& r : d.rows) {
      if (!r.ok() || !r.fused() || r.point() != q.point()) continue;
      p.consider(r.t, r.config());
      if (r.impl == dflt_impl && (dflt_sms == 0 || r.comm_sms == dflt_sms)) p.default_us = r.t, p.default_config = r.config();
    }
    out.push_back(p);
  }
  return out;
}

std::string fused_summary_markdown(const std::string& path) {
  const FusedSummary s = fused_summary(path);
  std::ostringstream os;
  os << "# Fused summary\n\n`" << path << "`: " << s.rows << " rows (" << s.ok << " ok), git commit "
     << (s.git_commit.empty() ? "-" : s.git_commit) << ", peer mode " << (s.peer_mode.empty() ? "-" : s.peer_mode) << ".\n";
  std::vector<TunedLine> lines;
  for (const auto& p : fused_tuned_points(path))
    lines.push_back({{p.op, std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k),
                      std::to_string(p.gpus)},
                     p});
  if (lines.empty()) os << "\nNo `tuned` rows (pkbench_fused --tuning-table=fused_tuning.json adds them).\n";
  tuned_section(os,
                "best = the fastest fused row at the point (the tuning table's candidates: intra-SM and every "
                "inter-SM split measured; baselines are never answered); default = the answered schedule at its "
                "untuned knobs (the answer's default=).",
                {"op", "local M x N x K", "GPUs"}, lines);
  return os.str();
}

std::vector<KSweepRow> fused_k_sweep(const std::string& path, const std::string& op) {
  std::vector<KSweepRow> out;
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> index;
  for (const FusedRow& q : read_fused(path).rows) {
    if (!q.ok() || q.op != op) continue;
    auto [it, fresh] = index.emplace(std::make_tuple(q.m, q.n, q.k), out.size());
    if (fresh) out.push_back(KSweepRow{q.m, q.n, q.k});
    KSweepRow& r = out[it->second];
    const double us = q.t;
    const double ratio = std::isnan(q.comm_ratio) ? -1 : q.comm_ratio;
    auto keep = [&](double& slot) {
      if (slot < 0 || us < slot) slot = us;
    };
    if (q.impl == "gemm_pk") keep(r.gemm_us);
    else if (q.impl == "cublas_nccl") keep(r.cublas_nccl_us);
    else if (q.overlap == "intra_sm" && (r.intra_us < 0 || us < r.intra_us)) r.intra_us = us, r.intra_ratio = ratio;
    else if (q.overlap == "inter_sm" && (r.inter_us < 0 || us < r.inter_us))
      r.inter_us = us, r.inter_ratio = ratio, r.inter_comm_sms = q.comm_sms;
  }
  std::sort(out.begin(), out.end(), [](const KSweepRow& a, const KSweepRow& b) {
    return std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
  });
  return out;
}

const TargetSpecs& fused_target_specs() {
  static const TargetSpecs v({
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
  });
  return v;
}

std::string fused_op_text(const std::string& op) {
  if (op == "gemm_rs") return "GEMM+RS";
  if (op == "ag_gemm") return "AG+GEMM";
  if (op == "gemm_ar") return "GEMM+AR";
  return op;
}

std::vector<TargetResult> fused_targets(const FusedSummary& f, const std::vector<KSweepRow>& k_sweep) {
  const TargetSpecs& spec = fused_target_specs();
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
    if (!spec("fused.vs_best_baseline").holds(v))
      below += (below.empty() ? "" : ", ") + shape(s) + " " + num(v, 3) + " against " + who;
    if (!low2 || v < low2_v) low2 = &s, low2_v = v, low2_base = who;
  }
  if (low)
    out.push_back(judge_target(spec("fused.vs_cublas_nccl"),
                               "lowest: " + shape(*low) + " " + std::string(low->best_fused()) + " " + num(low_v, 3) +
                                   "x (all: " + all + ")",
                               low_v, "cuBLAS then NCCL (same run)"));
  if (low2)
    out.push_back(judge_target(spec("fused.vs_best_baseline"),
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
  if (worst) out.push_back(judge_target(spec("fused.hidden_k"), "GEMM+RS at M = N = " + std::to_string(worst->m) + ": " + ks, 100 * worst_v));
  return out;
}

}  // namespace pk::fused
