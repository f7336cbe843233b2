#include "sweeps/fused_table.h"

#include "sweeps/study_schema.h"
#include "sweeps/verdict.h"

#include <pkbench/tuning.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace pk::sweeps {

const std::vector<Field>& fused_fields() {
  using T = ColumnType;
  static const std::vector<Field> f = {{"op"},
                                       {"overlap"},
                                       {"impl"},
                                       {"m", T::integer},
                                       {"n", T::integer},
                                       {"k", T::integer},
                                       {"gpus", T::integer},
                                       {"comm_sms", T::integer},
                                       {"time_us_median", T::number},
                                       {"time_us_min", T::number},
                                       {"time_us_max", T::number},
                                       {"cv", T::number, false},
                                       {"tflops", T::number},
                                       {"status"},
                                       {"peer_mode", T::text, false},
                                       {"tuning", T::text, false}};
  return f;
}

namespace {

struct FusedRow {
  std::string op, overlap, impl, peer_mode;
  int64_t m = 0, n = 0, k = 0, gpus = 0, comm_sms = 0;
  double t = 0, tmin = 0, tmax = 0, tflops = 0;
  size_t line = 0;
  double lo() const { return tmin > 0 ? tmin : t; }
  double hi() const { return tmax > 0 ? tmax : t; }
};

bool simpler(const FusedRow& a, const FusedRow& b) {
  if (a.comm_sms != b.comm_sms) return a.comm_sms < b.comm_sms;
  if (a.overlap != b.overlap) return a.overlap == "intra_sm";
  if (a.impl != b.impl) return a.impl < b.impl;
  return a.t < b.t;
}

}  // namespace

TuningTable fused_tuning(const std::string& path) {
  const CsvTable t = CsvTable::read(path, fused_fields(), checked_as("fused"));
  std::vector<FusedRow> rows;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    FusedRow r;
    r.op = t.text(i, "op");
    r.overlap = t.text(i, "overlap");
    r.impl = t.text(i, "impl");
    r.peer_mode = t.text(i, "peer_mode");
    r.m = t.integer(i, "m");
    r.n = t.integer(i, "n");
    r.k = t.integer(i, "k");
    r.gpus = t.integer(i, "gpus");
    r.comm_sms = t.integer(i, "comm_sms");
    r.t = t.number(i, "time_us_median");
    r.tmin = t.number(i, "time_us_min");
    r.tmax = t.number(i, "time_us_max");
    r.tflops = t.number(i, "tflops");
    r.line = t.line_of(i);
    rows.push_back(r);
  }
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
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, std::vector<const FusedRow*>> groups;
  for (const auto& r : rows) groups[{r.op, r.gpus, r.m, r.n, r.k}].push_back(&r);
  // Virtual ranks (several on one GPU) measure HBM, not NVLink: their rows name a machine of
  // their own, which only a run on the same virtual ranks matches (pkbench/tuning.h).
  auto machine_of = [&](const FusedRow& r) {
    return r.peer_mode == "virtual" ? pkbench::tuning::virtual_machine_key(t.machine().key(), static_cast<int>(r.gpus))
                                    : t.machine().key();
  };
  for (const auto& [key, all] : groups) {
    std::vector<const FusedRow*> rs;
    const FusedRow* base = nullptr;
    const FusedRow* intra = nullptr;
    const FusedRow* inter = nullptr;
    for (const FusedRow* r : all) {
      if (r->overlap == "baseline") {
        if (!base || r->t < base->t) base = r;
        continue;
      }
      if (r->overlap != "intra_sm" && r->overlap != "inter_sm") continue;  // "component": a GEMM or collective alone
      rs.push_back(r);
      const FusedRow*& best = r->overlap == "intra_sm" ? intra : inter;
      if (!best || r->t < best->t) best = r;
    }
    if (rs.empty()) continue;
    const FusedRow* fastest = *std::min_element(rs.begin(), rs.end(), [](auto a, auto b) { return a->t < b->t; });
    std::vector<const FusedRow*> tied;
    const FusedRow* runner = nullptr;
    for (const FusedRow* r : rs) {
      if (bands_overlap(r->lo(), r->hi(), fastest->lo(), fastest->hi())) tied.push_back(r);
      else if (!runner || r->t < runner->t) runner = r;
    }
    const FusedRow* c = *std::min_element(tied.begin(), tied.end(), [](auto a, auto b) { return simpler(*a, *b); });
    tt.rows.push_back({machine_of(*c),
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
                       path + ":" + std::to_string(c->line)});
  }
  return tt;
}

namespace {

// The tuning table's columns and the ones the summaries read besides.
std::vector<Field> summary_fields() {
  using T = ColumnType;
  std::vector<Field> f = fused_fields();
  f.push_back({"size_n", T::integer, false});
  f.push_back({"comm_share", T::number, false});
  f.push_back({"comm_ratio", T::number, false});
  f.push_back({"git_commit", T::text, false});
  f.push_back({"error", T::text, false});
  return f;
}

}  // namespace

FusedSummary fused_summary(const std::string& path) {
  const CsvTable t = CsvTable::read(path, summary_fields(), checked_as("fused"));
  FusedSummary s;
  s.path = path;
  s.rows = t.rows();
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, size_t> index;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (s.git_commit.empty()) s.git_commit = t.text(i, "git_commit");
    if (s.peer_mode.empty()) s.peer_mode = t.text(i, "peer_mode");
    if (t.text(i, "status") != "ok") continue;
    ++s.ok;
    const std::string op(t.text(i, "op"));
    const int64_t m = t.integer(i, "m"), n = t.integer(i, "n"), k = t.integer(i, "k"), g = t.integer(i, "gpus");
    auto [it, fresh] = index.emplace(std::make_tuple(op, g, m, n, k), s.shapes.size());
    if (fresh) {
      FusedShape sh;
      sh.op = op;
      sh.m = m, sh.n = n, sh.k = k, sh.gpus = g;
      sh.size_n = t.integer(i, "size_n");
      s.shapes.push_back(sh);
    }
    FusedShape& sh = s.shapes[it->second];
    const std::string overlap(t.text(i, "overlap")), impl(t.text(i, "impl"));
    const double us = t.number(i, "time_us_median");
    if (impl == "cublas_nccl") {
      if (sh.cublas_nccl_us <= 0 || us < sh.cublas_nccl_us) {
        sh.cublas_nccl_us = us;
        // The README's measure: its comm_ratio, (cuBLAS then NCCL - our GEMM alone) / cuBLAS then
        // NCCL; else comm_share, NCCL alone / (cuBLASLt alone + NCCL alone).
        if (!t.empty(i, "comm_ratio")) sh.comm_share = t.number(i, "comm_ratio");
        else if (!t.empty(i, "comm_share")) sh.comm_share = t.number(i, "comm_share");
      }
    } else if (overlap == "baseline") {
      if (sh.baseline_us <= 0 || us < sh.baseline_us) sh.baseline_us = us, sh.baseline_impl = impl;
    } else if (overlap == "intra_sm") {
      if (sh.intra_us <= 0 || us < sh.intra_us) sh.intra_us = us;
    } else if (overlap == "inter_sm") {
      if (sh.inter_us <= 0 || us < sh.inter_us) sh.inter_us = us, sh.inter_comm_sms = t.integer(i, "comm_sms");
    }
  }
  return s;
}

std::vector<FusedTuned> fused_tuned_points(const std::string& path) {
  const CsvTable t = CsvTable::read(path, summary_fields(), checked_as("fused"));
  auto point_of = [&](size_t i) {
    return std::make_tuple(std::string(t.text(i, "op")), t.integer(i, "gpus"), t.integer(i, "m"), t.integer(i, "n"),
                           t.integer(i, "k"));
  };
  // "intra_sm", "inter_sm comm_sms=8": a fused row's configuration.
  auto config_of = [&](size_t i) {
    const std::string impl(t.text(i, "impl"));
    return impl == "inter_sm" ? impl + " comm_sms=" + std::to_string(t.integer(i, "comm_sms")) : impl;
  };
  std::vector<FusedTuned> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "impl") != "tuned") continue;
    FusedTuned p;
    std::tie(p.op, p.gpus, p.m, p.n, p.k) = point_of(i);
    const bool ok = t.text(i, "status") == "ok";
    p.answer = ok ? std::string(t.text(i, "tuning")) : std::string(t.text(i, "status")) + ": " + std::string(t.text(i, "error"));
    if (ok) p.tuned_us = t.number(i, "time_us_median");
    // "... default=inter_sm/comm_sms:16" (microbench/fused/fused_tuned.cpp): the answered
    // schedule at its untuned knobs, written as the point names write knobs.
    std::string dflt, word;
    for (std::istringstream is{std::string(t.text(i, "tuning"))}; is >> word;)
      if (word.rfind("default=", 0) == 0) dflt = word.substr(8);
    const std::string dflt_impl = dflt.substr(0, dflt.find('/'));
    const size_t at = dflt.find("/comm_sms:");
    const int64_t dflt_sms = at == std::string::npos ? 0 : std::atoll(dflt.c_str() + at + 10);  // 0: none (intra_sm)
    for (size_t j = 0; j < t.rows(); ++j) {
      const std::string overlap(t.text(j, "overlap"));
      if (t.text(j, "status") != "ok" || (overlap != "intra_sm" && overlap != "inter_sm") || point_of(j) != point_of(i)) continue;
      p.consider(t.number(j, "time_us_median"), config_of(j));
      if (t.text(j, "impl") == dflt_impl && (dflt_sms == 0 || t.integer(j, "comm_sms") == dflt_sms))
        p.default_us = t.number(j, "time_us_median"), p.default_config = config_of(j);
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
  const CsvTable t = CsvTable::read(path, summary_fields(), checked_as("fused"));
  std::vector<KSweepRow> out;
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> index;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok" || t.text(i, "op") != op) continue;
    const int64_t m = t.integer(i, "m"), n = t.integer(i, "n"), k = t.integer(i, "k");
    auto [it, fresh] = index.emplace(std::make_tuple(m, n, k), out.size());
    if (fresh) out.push_back(KSweepRow{m, n, k});
    KSweepRow& r = out[it->second];
    const std::string impl(t.text(i, "impl")), overlap(t.text(i, "overlap"));
    const double us = t.number(i, "time_us_median");
    const double ratio = t.empty(i, "comm_ratio") ? -1 : t.number(i, "comm_ratio");
    auto keep = [&](double& slot) {
      if (slot < 0 || us < slot) slot = us;
    };
    if (impl == "gemm_pk") keep(r.gemm_us);
    else if (impl == "cublas_nccl") keep(r.cublas_nccl_us);
    else if (overlap == "intra_sm" && (r.intra_us < 0 || us < r.intra_us)) r.intra_us = us, r.intra_ratio = ratio;
    else if (overlap == "inter_sm" && (r.inter_us < 0 || us < r.inter_us))
      r.inter_us = us, r.inter_ratio = ratio, r.inter_comm_sms = t.integer(i, "comm_sms");
  }
  std::sort(out.begin(), out.end(), [](const KSweepRow& a, const KSweepRow& b) {
    return std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
  });
  return out;
}

}  // namespace pk::sweeps
