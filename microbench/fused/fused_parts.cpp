// What the fused study gives the tools that span the studies (microbench/harness/study_parts.h):
// its tuning table and leave-one-out, and its parts of a folder's report (its rows, the paper's
// Figure 4/7-9 and Table 3 claims, its section, its targets).
#include <filesystem>
#include <set>
#include <sstream>
#include <tuple>

#include "microbench/fused/fused_analysis.h"
#include "microbench/harness/format.h"
#include "microbench/harness/study_parts.h"
#include "microbench/harness/verdict.h"
#include "pkbench/tuning.h"

namespace fs = std::filesystem;

namespace pk::fused {

namespace {

// <dir>/fused/fused.csv, with Table 3's K sweep (fused_table3.csv) where measured.
class FusedResults final : public StudyResults {
 public:
  FusedResults(const std::string& csv, const StudySchemas* schemas_)
      : fu(fused_summary(csv)), fused_dir(fs::path(csv).parent_path().string()), schemas(schemas_) {
    if (fs::exists(fused_dir + "/fused_table3.csv")) k_sweep = fused_k_sweep(fused_dir + "/fused_table3.csv");
  }
  void table_rows(std::ostream& os, const std::string& dir, const std::string&) const override {
    os << "| fused | `" << relative_to(fu.path, dir) << "` | " << fu.rows << " (" << fu.ok << " ok) | "
       << dash_if_empty(fu.git_commit) << " | " << dash_if_empty(fu.peer_mode) << " |\n";
    for (const char* extra : {"fused_fig5.csv", "fused_table3.csv"})
      if (fs::exists(fused_dir + "/" + extra))
        csv_table_row(os, "fused", fused_dir + "/" + extra, relative_to(fused_dir + "/" + extra, dir), schemas);
  }
  void section(std::ostream& os, const std::string& dir) const override;
  std::vector<TargetResult> targets() const override { return fused_targets(fu, k_sweep); }

  FusedSummary fu;
  std::vector<KSweepRow> k_sweep;  // Table 3 (empty if absent)
  std::string fused_dir;
  const StudySchemas* schemas;
};

const FusedResults* of(const StudyResults* r) { return dynamic_cast<const FusedResults*>(r); }

// "1.469" in bold when `bold`.
std::string ratio_cell(double v, bool bold) {
  if (v <= 0) return "-";
  return bold ? "**" + num(v, 3) + "**" : num(v, 3);
}

void FusedResults::section(std::ostream& os, const std::string& dir) const {
  os << "\n## Fused GEMM + communication (Figures 4, 5, 7-9, Table 3)\n\nFrom `" << relative_to(fu.path, dir) << "` ("
     << fu.ok << " ok rows, commit " << dash_if_empty(fu.git_commit) << ", peer mode " << dash_if_empty(fu.peer_mode)
     << "). Each schedule at its best communication-SM count; speedup = cuBLAS then NCCL's median / the "
        "schedule's median, same run (the paper's baseline). The paper reports up to 2.33x for data- and "
        "tensor-parallel workloads (its abstract) and intra-SM 1.2x faster than inter-SM for GEMM+RS. The targets "
        "(below): >= 1.25x over cuBLAS then NCCL wherever communication is >= 30 % of it, and at every shape the "
        "best fused kernel against the best baseline of any kind (the suite's copy-engine overlap included). "
        "\"choice\" is the fused tuning table's (`pkbench_tune`: the simplest configuration within the fastest's "
        "noise).\n\n"
     << "| operator | N | local M x N x K | comm share of cuBLAS+NCCL (its time - GEMM alone) | best fused / cuBLAS+NCCL | intra-SM | "
        "inter-SM (comm SMs) | choice | best other baseline (its speedup over cuBLAS+NCCL) | best baseline / best "
        "fused |\n|---|---:|---|---:|---:|---:|---:|---|---|---:|\n";
  const TuningTable tt = fused_tuning(fu.path);
  auto choice = [&](const FusedShape& s) -> std::string {
    for (size_t i = 0; i < tt.rows.size(); ++i)
      if (cell_text(tt.at(i, "op")) == s.op && std::get<int64_t>(tt.at(i, "m")) == s.m &&
          std::get<int64_t>(tt.at(i, "n")) == s.n && std::get<int64_t>(tt.at(i, "k")) == s.k &&
          std::get<int64_t>(tt.at(i, "gpus")) == s.gpus) {
        const std::string o = cell_text(tt.at(i, "overlap"));
        return o == "inter_sm" ? o + ", " + cell_text(tt.at(i, "comm_sms")) + " SMs" : o;
      }
    return "-";
  };
  for (const std::string op : {"gemm_rs", "ag_gemm", "gemm_ar"})
    for (const auto& s : fu.shapes) {
      if (s.op != op) continue;
      const double best = s.speedup(s.best_fused_us());
      const bool intra_best = s.best_fused_us() == s.intra_us;
      os << "| " << fused_op_text(s.op) << " | " << (s.size_n ? std::to_string(s.size_n) : "-") << " | " << s.m << "x"
         << s.n << "x" << s.k << " | " << (s.comm_share >= 0 ? num(100 * s.comm_share, 0) + " %" : "-") << " | "
         << ratio_cell(best, true) << " (" << s.best_fused() << ") | " << ratio_cell(s.speedup(s.intra_us), intra_best)
         << " | " << ratio_cell(s.speedup(s.inter_us), !intra_best)
         << (s.inter_us > 0 ? " (" + std::to_string(s.inter_comm_sms) + ")" : "") << " | " << choice(s) << " | "
         << (s.baseline_us > 0 ? s.baseline_impl + " " + num(s.speedup(s.baseline_us), 3) : "-") << " | "
         << ratio_cell(speedup(s.best_baseline_us(), s.best_fused_us()), false) << " |\n";
    }
  // PyTorch's async TP, where pkbench_torch_ref merged its figures into the fused CSV: the
  // best baseline above (and the fused.vs_best_baseline target) then includes it.
  std::ostringstream torch;
  for (const std::string op : {"gemm_rs", "ag_gemm", "gemm_ar"})
    for (const auto& s : fu.shapes)
      if (s.op == op && s.torch_us > 0)
        torch << "| " << fused_op_text(s.op) << " | " << (s.size_n ? std::to_string(s.size_n) : "-") << " | " << s.m
              << "x" << s.n << "x" << s.k << " | " << s.gpus << " | " << num(s.torch_us, 1) << " | "
              << (s.best_fused_us() > 0 ? num(s.best_fused_us(), 1) + " (" + s.best_fused() + ")" : "-") << " | "
              << ratio_cell(speedup(s.torch_us, s.best_fused_us()), false) << " | " << s.best_baseline() << " "
              << num(s.best_baseline_us(), 1) << " | " << ratio_cell(speedup(s.best_baseline_us(), s.best_fused_us()), false)
              << " |\n";
  if (!torch.str().empty())
    os << "\nAgainst PyTorch's async tensor parallelism (`torch.ops.symm_mem.fused_*`, its figures merged by "
          "`pkbench_torch_ref` from `microbench/fused/ref_torch.py`, CUDA-event medians, same shapes and GPUs), and "
          "the best baseline of any kind (cuBLAS then NCCL, the overlapped cuBLAS+NCCL, the copy-engine overlap, "
          "PyTorch), medians in us:\n\n| operator | N | local M x N x K | GPUs | PyTorch async TP | best fused | "
          "PyTorch / best fused | best baseline | best baseline / best fused |\n|---|---:|---|---:|---:|---:|---:|---|---:|\n"
       << torch.str();
  if (!k_sweep.empty()) {
    os << "\nTable 3 (`" << relative_to(fused_dir + "/fused_table3.csv", dir)
       << "`): GEMM+RS against K, medians in ms; non-overlapped = (fused - GEMM alone) / fused. The paper: "
          "communication hides from K >= sR/2B (2197 on H100).\n\n"
       << "| M x N | K | GEMM alone (ours) | cuBLAS then NCCL | fused intra-SM | non-overlapped | fused inter-SM "
          "(comm SMs) | non-overlapped |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
    auto ms = [](double us) { return us > 0 ? num(us / 1000, 3) : std::string("-"); };
    auto pct = [](double r) { return r >= 0 ? num(100 * r, 1) + " %" : std::string("-"); };
    for (const auto& r : k_sweep)
      os << "| " << r.m << " x " << r.n << " | " << r.k << " | " << ms(r.gemm_us) << " | " << ms(r.cublas_nccl_us) << " | "
         << ms(r.intra_us) << " | " << pct(r.intra_ratio) << " | " << ms(r.inter_us)
         << (r.inter_us > 0 ? " (" + std::to_string(r.inter_comm_sms) + ")" : "") << " | " << pct(r.inter_ratio) << " |\n";
  }
  std::vector<std::string> more;
  for (const char* name : {"fused/fused_model.txt", "fused/fused_table3_model.txt", "fused/fused_fig5_model.txt",
                           "tuning/fused_tuning.csv", "fused/table3.md", "fused/README.md"})
    if (fs::exists(dir + "/" + name)) more.push_back(std::string("[`") + name + "`](" + name + ")");
  if (!more.empty()) {
    os << "\nAlso: ";
    for (size_t i = 0; i < more.size(); ++i) os << (i ? ", " : "") << more[i];
    os << " (the cost model's predictions beside the measurements, the tuning table, the study's notes).\n";
  }
}

std::string k_sweep_hidden(const StudyResults* f, const std::string&) {
  if (!of(f) || of(f)->k_sweep.empty()) return "";
  std::string out;
  int64_t hidden_from = 0;
  for (const auto& r : of(f)->k_sweep) {
    const bool intra = r.intra_us > 0 && (r.inter_us <= 0 || r.intra_us <= r.inter_us);
    const double ratio = intra ? r.intra_ratio : r.inter_ratio;
    if (ratio < 0) continue;
    out += (out.empty() ? "" : ", ") + num(100 * ratio, 1) + " % at K = " + std::to_string(r.k);
    if (ratio > 0.05) hidden_from = 0;
    else if (!hidden_from) hidden_from = r.k;
  }
  if (out.empty()) return "";
  return "non-overlapped share of the faster fused kernel: " + out + "; <= 5 % from " +
         (hidden_from ? "K = " + std::to_string(hidden_from) : std::string("no K measured"));
}

std::vector<PaperClaim> fused_claims() {
  return {
    {"fused GEMM + communication over cuBLAS then NCCL", "up to 2.33x (abstract: data- and tensor-parallel workloads)",
     [](const StudyResults* f, const std::string&) -> std::string {
       if (!of(f)) return "";
       const FusedShape* best = nullptr;
       for (const auto& s : of(f)->fu.shapes)
         if (s.speedup(s.best_fused_us()) > 0 && (!best || s.speedup(s.best_fused_us()) > best->speedup(best->best_fused_us())))
           best = &s;
       if (!best) return "";
       return "up to " + ratio_text(best->speedup(best->best_fused_us())) + " (" + fused_op_text(best->op) + " " +
              best->best_fused() + (best->size_n ? ", N = " + std::to_string(best->size_n) : "") + ", " +
              std::to_string(best->gpus) + " GPUs; every operator in the fused section)";
     },
     "fused study (Figures 7-9): the best fused kernel's median against cuBLAS then NCCL's, same run"},
    {"GEMM+RS: intra-SM over inter-SM", "1.2x",
     [](const StudyResults* f, const std::string&) -> std::string {
       if (!of(f)) return "";
       std::string out;
       for (const auto& s : of(f)->fu.shapes)
         if (s.op == "gemm_rs" && s.intra_us > 0 && s.inter_us > 0)
           out += (out.empty() ? "" : ", ") + ratio_text(s.inter_us / s.intra_us) +
                  (s.size_n ? " (N = " + std::to_string(s.size_n) + ")" : "");
       return out;
     },
     "fused study (Figure 4): best inter-SM median / best intra-SM median"},
    {"GEMM+RS: communication hidden from K", ">= 2197 (H100)", k_sweep_hidden,
     "fused study (Table 3, GEMM+RS K sweep): (fused - GEMM alone) / fused"},
    {"GEMM+AR through NVSwitch multicast over cuBLAS then NCCL", "3.62x",
     [](const StudyResults* f, const std::string&) -> std::string {
       return of(f) ? "not run: multicast is never run on shared machines (the AR kernels use NVLink stores)" : "";
     },
     "fused study"},
  };
}

// What each figure of the study shows, by file-name prefix (scripts/plot.sh names them).
std::string fused_caption(const std::string& figure) {
  static const std::pair<const char*, const char*> kCaptions[] = {
      {"fig4_", "Figure 4 of the paper: GEMM+RS and GEMM+AR, intra-SM against inter-SM overlap (TFLOP/s against N, "
                "inter-SM at its best communication SMs)"},
      {"fig5_", "Figure 5 of the paper: the SM split, inter-SM time against the SMs given to communication, beside "
                "cuBLAS then NCCL and intra-SM"},
      {"fig7_", "Figure 7 of the paper: AG+GEMM, TFLOP/s against N, every schedule and baseline at its best setting"},
      {"fig8_", "Figure 8 of the paper: GEMM+RS, TFLOP/s against N, every schedule and baseline at its best setting"},
      {"fig9_", "Figure 9 of the paper: GEMM+AR, TFLOP/s against N, every schedule and baseline at its best setting"},
  };
  for (const auto& [prefix, caption] : kCaptions)
    if (figure.rfind(prefix, 0) == 0) return caption;
  return "";
}

}  // namespace

namespace tn = pkbench::tuning;

LooResult loo_fused(const std::vector<std::string>& csvs, double tol) {
  std::vector<LooCsv> all;
  for (const auto& p : csvs) all.push_back(read_loo_csv(p));
  using Shape = std::tuple<std::string, long long, long long, long long, long long>;  // op, gpus, m, n, k
  auto shape = [](const LooCsv& c, const std::vector<std::string>& r) {
    return Shape{r[c.col("op")], loo_int(r[c.col("gpus")]), loo_int(r[c.col("m")]), loo_int(r[c.col("n")]),
                 loo_int(r[c.col("k")])};
  };
  auto candidate = [](const LooCsv& c, const std::vector<std::string>& r) {
    const std::string& o = r[c.col("overlap")];
    return r[c.col("status")] == "ok" && (o == "intra_sm" || o == "inter_sm");
  };
  std::set<Shape> shapes;
  for (const auto& c : all)
    for (const auto& r : c.rows)
      if (candidate(c, r)) shapes.insert(shape(c, r));
  LooResult res;
  res.table = "fused";
  for (const auto& p : csvs) res.source += (res.source.empty() ? "" : " ") + p;
  res.tolerance = tol;
  for (const Shape& s : shapes) {
    const auto& [op, g, m, n, k] = s;
    tn::SplitChoice a;
    try {
      tn::Tuner t(loo_machine(all[0]));
      for (size_t i = 0; i < all.size(); ++i) {
        const std::string tmp = write_loo_csv(all[i], "fused" + std::to_string(i),
                                              [&](const std::vector<std::string>& r) { return shape(all[i], r) != s; });
        const TuningTable tt = fused_tuning(tmp);
        std::filesystem::remove(tmp);
        if (!tt.rows.empty()) t.add(api_table(tt));
      }
      a = t.choose_split(op, m, n, k, static_cast<int>(g));
    } catch (const tn::Error& e) {
      a.why = e.what();
    }
    for (size_t i = 0; i < all.size(); ++i) {
      const LooCsv& c = all[i];
      LooCase lc;
      lc.table = res.table;
      lc.csv = csvs[i];
      lc.point = op + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " on " + std::to_string(g);
      auto conf = [&](const std::vector<std::string>& r) {
        return r[c.col("overlap")] + " " + r[c.col("impl")] + " comm_sms=" + r[c.col("comm_sms")];
      };
      for (const auto& r : c.rows)
        if (candidate(c, r) && shape(c, r) == s) {
          const double us = loo_real(r[c.col("time_us_median")]);
          if (lc.best_us == 0 || us < lc.best_us) lc.best_us = us, lc.best = conf(r);
          if (a.ok() && r[c.col("overlap")] == a.overlap && r[c.col("impl")] == a.impl &&
              loo_int(r[c.col("comm_sms")]) == a.comm_sms && (lc.answer_us == 0 || us < lc.answer_us))
            lc.answer_us = us;
        }
      if (lc.best_us == 0) continue;  // this CSV did not measure the shape
      lc.basis = tn::to_string(a.basis);
      lc.answer = a.ok() ? a.overlap + " " + a.impl + " comm_sms=" + std::to_string(a.comm_sms) : a.why;
      res.cases.push_back(lc);
    }
  }
  return res;
}

StudyParts fused_parts() {
  StudyParts s;
  s.measure = fused_measure;
  s.tuning = [](const std::string& csv, const StudySchemas*) { return fused_tuning(csv); };
  s.virtual_tuning = true;
  // Every fused CSV given is one table of the same machine, validated together.
  s.leave_one_out = [](const std::vector<std::string>& csvs, double tol) {
    return csvs.empty() ? std::vector<LooResult>{} : std::vector<LooResult>{loo_fused(csvs, tol)};
  };
  s.load = load_csv<FusedResults>("fused/fused.csv");
  s.caption = fused_caption;
  s.claims = fused_claims();
  s.absent = [](const Machine*) { return std::string("fused kernels (Figures 4, 5, 7-9, Table 3: not measured here)"); };
  s.name_beside = "fused study";
  s.target_specs = &fused_target_specs();
  s.order = {.studies = 50, .figures = 50, .claims = 50, .sections = 20, .targets = 40};
  return s;
}

}  // namespace pk::fused
