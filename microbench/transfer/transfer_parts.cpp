// What the transfer study gives the tools that span the studies (microbench/harness/study_parts.h):
// its tuning table and leave-one-out, its side of the peer-mode comparison (every mechanism's
// peak and fewest SMs to 90 % of it), and its parts of a folder's report (its row, the line
// rate, the paper's Figure 2/3 claims, the tuning-table section, its targets).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "microbench/harness/format.h"
#include "microbench/harness/study_parts.h"
#include "microbench/transfer/transfer_analysis.h"
#include "pkbench/tuning.h"

namespace fs = std::filesystem;

namespace pk::transfer {

namespace {

// The transfer CSV of a results folder or of a peer-mode run.
class TransferResults final : public FileResults<TransferData> {
 public:
  TransferResults(const std::string& csv, const StudySchemas* schemas)
      : FileResults(read_transfer(csv, schemas)), summary(summarize_mechanisms(data.rows)) {}
  void table_rows(std::ostream& os, const std::string& dir, const std::string& mode) const override {
    if (mode.empty())
      os << "| transfer | `transfer/transfer.csv` | " << data.total << " (" << data.rows.size() << " ok, "
         << data.skipped << " skipped, " << data.errors << " errors) | " << dash_if_empty(data.git_commit) << " | "
         << dash_if_empty(data.peer_mode) << " |\n";
    else
      os << "| transfer (" << mode << ") | `" << relative_to(data.path, dir) << "` | " << data.total << " | "
         << dash_if_empty(data.git_commit) << " | " << data.peer_mode << " |\n";
  }
  void environment(std::ostream& os) const override {
    if (!data.rows.empty())
      os << "\nLine rate used for \"% of line rate\": " << num(data.rows.front().line_rate_gbps) << " GB/s per direction.\n";
  }
  void section(std::ostream& os, const std::string& dir) const override;
  std::vector<TargetResult> targets() const override { return transfer_targets(data, summary, elapsed_s); }
  void targets_note(std::ostream& os) const override {
    if (elapsed_s >= 0) os << " The transfer study's wall time comes from " << elapsed_source << ".";
  }

  std::vector<MechanismSummary> summary;
  double elapsed_s = -1;  // the study's wall time with the build, if recorded
  std::string elapsed_source;
};

const TransferResults* of(const StudyResults* r) { return dynamic_cast<const TransferResults*>(r); }

// The transfer tuning table, any and device choices paired per bucket.
void TransferResults::section(std::ostream& os, const std::string& dir) const {
  const TuningTable t = transfer_tuning(data);
  os << "\n## Transfer tuning table\n\nThe table `pkbench_tune --out " << fs::path(dir).lexically_normal().string()
     << "/tuning` writes as `tuning/transfer_tuning.csv`, `transfer_tuning.json` and `pkbench_tuning.h` "
        "(`lookup_transfer(machine, direction, pattern, choice, bytes)`), from `transfer/transfer.csv`. "
     << t.doc
     << " \"tied\" counts the configurations within the fastest's noise; \"gap\" is how much slower the best "
        "configuration outside the noise was.\n\n"
     << "| direction | pattern | bucket | any: mechanism, config | GB/s | tied | gap | device: mechanism, config | "
        "GB/s | fewest SMs >= 90 % |\n|---|---|---|---|---:|---:|---:|---|---:|---|\n";
  // Pair the any/device rows of one bucket.
  std::map<std::tuple<std::string, std::string, int64_t>, std::pair<int, int>> rows;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto k = std::make_tuple(cell_text(t.at(i, "direction")), cell_text(t.at(i, "pattern")),
                             std::get<int64_t>(t.at(i, "from_bytes")));
    auto& p = rows.emplace(k, std::make_pair(-1, -1)).first->second;
    (cell_text(t.at(i, "choice")) == "any" ? p.first : p.second) = static_cast<int>(i);
  }
  auto config = [&](int i) {
    std::string c = cell_text(t.at(i, "mechanism"));
    std::string k;
    for (const auto& name : transfer_knob_columns()) {
      const Cell& v = t.at(i, name);
      if (!std::holds_alternative<std::monostate>(v)) k += (k.empty() ? "" : " ") + name + "=" + cell_text(v);
    }
    return k.empty() ? c : c + " (" + k + ")";
  };
  for (const auto& [k, p] : rows) {
    const auto& [dir_, pat, from] = k;
    os << "| " << dir_ << " | " << pat << " | " << size_text(static_cast<uint64_t>(from)) << " |";
    if (p.first >= 0) {
      const Cell& gap = t.at(p.first, "runner_up_gap_pct");
      os << " " << config(p.first) << " | " << cell_text(t.at(p.first, "gbps"), 1) << " | "
         << cell_text(t.at(p.first, "tied")) << " of " << cell_text(t.at(p.first, "candidates")) << " | "
         << (std::holds_alternative<std::monostate>(gap) ? "-" : cell_text(gap, 1) + " %") << " |";
    } else {
      os << " - | | | |";
    }
    if (p.second >= 0) {
      const Cell& m90 = t.at(p.second, "min_sms_90");
      os << " " << config(p.second) << " | " << cell_text(t.at(p.second, "gbps"), 1) << " | "
         << (std::holds_alternative<std::monostate>(m90)
                 ? std::string("-")
                 : cell_text(m90) + (std::get<bool>(t.at(p.second, "sms_swept")) ? "" : " (SMs not swept)"))
         << " |\n";
    } else {
      os << " - | | |\n";
    }
  }
}

}  // namespace

std::optional<MainRunElapsed> main_run_elapsed(const std::string& timing_csv, const StudySchemas* schemas) {
  if (!fs::exists(timing_csv)) return std::nullopt;
  ReadOptions o;
  o.schemas = schemas;
  o.one_machine = false;
  const CsvTable t = CsvTable::read(timing_csv, {{"step"}, {"seconds_with_build", ColumnType::number}}, o);
  std::optional<MainRunElapsed> last;
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string step(t.text(i, "step"));
    if (step == "transfer" || step.rfind("transfer.", 0) == 0) last = MainRunElapsed{t.number(i, "seconds_with_build"), t.line_of(i)};
  }
  return last;
}

namespace {

// <dir>/transfer/transfer.csv, with the study's wall time (main_run_elapsed of the timing.csv beside it).
std::unique_ptr<StudyResults> load_folder(const std::string& dir, const StudySchemas* schemas) {
  std::unique_ptr<StudyResults> loaded = load_csv<TransferResults>("transfer/transfer.csv")(dir, schemas);
  auto* r = static_cast<TransferResults*>(loaded.get());
  if (!r) return loaded;
  if (const auto e = main_run_elapsed(dir + "/transfer/timing.csv", schemas)) {
    r->elapsed_s = e->seconds;
    r->elapsed_source = "transfer/timing.csv:" + std::to_string(e->line);
  }
  return loaded;
}

// ---------------------------------------------------------------- the paper's claims

using Measure = std::function<std::string(const StudyResults*, const std::string&)>;

// A mechanism's push peak as % of the line rate, and its fewest SMs to 90 % of that peak.
Measure push_peak_pct(const char* mech) {
  return [mech](const StudyResults* r, const std::string&) -> std::string {
    const auto* s = of(r) ? find_summary(of(r)->summary, mech, "push") : nullptr;
    return s && s->line_rate_gbps > 0 ? num(s->pct_line()) + " % (" + num(s->peak_gbps) + " GB/s)" : "";
  };
}
Measure push_sms_90(const char* mech) {
  return [mech](const StudyResults* r, const std::string&) -> std::string {
    const auto* s = of(r) ? find_summary(of(r)->summary, mech, "push") : nullptr;
    return s && s->min_sms_90 ? std::to_string(s->min_sms_90) + " (90 % of its peak)" : "";
  };
}

std::vector<PaperClaim> transfer_claims() {
  return {
    {"copy engine: message size for > 80 % of the line rate", ">= 256 MB",
     [](const StudyResults* r, const std::string&) -> std::string {
       std::string out;
       if (!of(r)) return out;
       for (const char* dir : {"push", "pull"})
         if (const auto* s = find_summary(of(r)->summary, "ce", dir))
           out += (out.empty() ? "" : ", ") + (s->min_message_80_line ? size_text(s->min_message_80_line) : "never") +
                  " (" + dir + ")";
       return out;
     },
     "per cudaMemcpyPeerAsync call; the paper's 1 GB total"},
    {"copy engine: best % of the line rate", "81 %", push_peak_pct("ce"), "line rate from NVML (links x per-link rate)"},
    {"TMA: % of the line rate with 2 KB messages", "74 %",
     [](const StudyResults* r, const std::string&) -> std::string {
       if (!of(r)) return "";
       const auto* s = find_summary(of(r)->summary, "tma_bulk", "push");
       const double g = best_at(of(r)->data.rows, "tma_bulk", "push", 2048);
       return s && g > 0 && s->line_rate_gbps > 0 ? num(100 * g / s->line_rate_gbps) + " % (" + num(g) + " GB/s)" : "";
     },
     "tma_bulk push, all SMs"},
    {"TMA: SMs to saturate NVLink", "~15", push_sms_90("tma_bulk"),
     "fewest SMs reaching 90 % of the mechanism's own peak"},
    {"register ld/st: % of the line rate", "~70 % (B200)", push_peak_pct("reg"), "reg push peak"},
    {"register ld/st: SMs to saturate NVLink", "~76", push_sms_90("reg"), ""},
    {"register SMs / TMA SMs", "3.2-5.1x",
     [](const StudyResults* r, const std::string&) -> std::string {
       std::string out;
       if (!of(r)) return out;
       for (const char* dir : {"push", "pull"}) {
         const auto* g = find_summary(of(r)->summary, "reg", dir);
         const auto* t = find_summary(of(r)->summary, "tma_bulk", dir);
         if (g && t && g->min_sms_90 && t->min_sms_90)
           out += (out.empty() ? "" : ", ") + num(double(g->min_sms_90) / t->min_sms_90, 1) + "x (" + dir + ")";
       }
       return out;
     },
     ""},
  };
}

// What each figure of the study shows, by file-name prefix (scripts/plot.sh names them).
std::string transfer_caption(const std::string& figure) {
  if (figure.rfind("fig2_", 0) == 0)
    return "Figure 2 of the paper: bandwidth (% of the NVLink line rate) against message size, per mechanism, "
           "direction and pattern";
  if (figure.rfind("fig3_", 0) == 0)
    return "Figure 3 of the paper: GB/s against the number of SMs issuing, per device mechanism and message size, "
           "with the copy engine's best and the line rate";
  return "";
}

// ---------------------------------------------------------------- peer modes

ModeTally transfer_modes_table(std::ostream& os, const std::vector<std::string>& modes,
                               const std::vector<const StudyResults*>& runs, const TargetSpec& spec) {
  static const std::vector<MechanismSummary> none;
  auto summary = [&](size_t i) -> const std::vector<MechanismSummary>& { return of(runs[i]) ? of(runs[i])->summary : none; };
  const double lim = spec.value / 100;
  ModeTally tally;
  std::string all;
  for (size_t i = 0; i < modes.size(); ++i) all += (i ? " / " : "") + modes[i];
  os << "## Transfer: peak and SMs to 90 % of peak\n\n";
  mode_table_head(os, "| direction | pattern | mechanism |", modes, " GB/s",
                  {"SMs to 90 % (" + all + ")", "within " + num(spec.value, 0) + " %"});
  for (const auto& r : summary(0)) {
    std::vector<const MechanismSummary*> at;
    std::vector<double> v;
    for (size_t m = 0; m < modes.size(); ++m) {
      at.push_back(find_summary(summary(m), r.mechanism, r.direction, r.pattern));
      v.push_back(at.back() ? at.back()->peak_gbps : std::nan(""));
    }
    os << "| " << r.direction << " | " << r.pattern << " | " << r.mechanism << " |";
    bool ok = mode_value_cells(os, v, 1, "", lim);
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

// Every mechanism's peak and its fewest SMs to 90 % of it, each mode against the first.
PeerModeParts transfer_peer_modes() {
  const TargetSpec spec{"peer_modes.transfer", "results/h200x2/transfer/peer-modes/README.md",
                        "every mechanism's peak and fewest SMs to 90 % of it, ipc/vmm against single, within", "<=", 2,
                        " %"};
  return {load_csv<TransferResults>("transfer.csv"), spec,
          "every mechanism's peak and its fewest SMs to 90 % of that peak within " + num(spec.value, 0) + " %",
          transfer_modes_table, "transfer, ", "mechanism rows"};
}

}  // namespace

// ---------------------------------------------------------------- leave-one-out

namespace tn = pkbench::tuning;

std::vector<LooResult> loo_transfer(const std::string& csv, double tol) {
  const TransferData d = read_transfer(csv);
  const std::string machine = d.machine.key();
  std::set<std::tuple<std::string, std::string, uint64_t>> points;
  for (const auto& r : d.rows)
    if (r.pattern != "local") points.insert({r.direction, r.pattern, r.message_bytes});
  // The answer's knobs as TransferChoice names them.
  auto knobs_of = [](const tn::TransferChoice& a) {
    return std::map<std::string, int>{{"sms", a.sms},       {"threads", a.threads},     {"blocks_per_sm", a.blocks_per_sm},
                                      {"pipeline_depth", a.pipeline_depth}, {"vec_bytes", a.vec_bytes}, {"unroll", a.unroll}};
  };
  std::vector<LooResult> out;
  for (const bool device : {false, true}) {
    LooResult res;
    res.table = std::string("transfer (") + (device ? "device" : "any") + ")";
    res.source = csv;
    res.tolerance = tol;
    for (const auto& [dir, pat, bytes] : points) {
      TransferData h = d;
      h.rows.erase(std::remove_if(h.rows.begin(), h.rows.end(),
                                  [&](const TransferRow& r) {
                                    return r.direction == dir && r.pattern == pat && r.message_bytes == bytes;
                                  }),
                   h.rows.end());
      LooCase c;
      c.table = res.table;
      c.csv = csv;
      c.point = dir + " " + pat + " " + std::to_string(bytes) + " B";
      const TransferRow* best = nullptr;
      for (const auto& r : d.rows)
        if (r.direction == dir && r.pattern == pat && r.message_bytes == bytes && (!device || r.device_initiated()) &&
            (!best || r.gbps > best->gbps))
          best = &r;
      if (!best) continue;  // device choice: only the copy engine was measured here
      c.best = best->mechanism + " " + best->config();
      c.best_us = bytes / best->gbps / 1e3;
      tn::TransferChoice a;
      try {
        tn::Tuner t(machine);
        t.add(api_table(transfer_tuning(h)));
        a = t.choose_transfer(bytes, dir, 1, -1, device, pat);
      } catch (const tn::Error& e) {
        a.why = e.what();  // nothing else measured for these keys
      }
      c.basis = tn::to_string(a.basis);
      if (!a.ok()) {
        c.answer = a.why;
        res.cases.push_back(c);
        continue;
      }
      const auto knobs = knobs_of(a);
      std::string conf = a.mechanism;
      for (const auto& k : transfer_knob_columns())
        if (knobs.count(k) && knobs.at(k)) conf += " " + k + "=" + std::to_string(knobs.at(k));
      c.answer = conf;
      for (const auto& r : d.rows) {
        if (r.direction != dir || r.pattern != pat || r.message_bytes != bytes || r.mechanism != a.mechanism) continue;
        bool same = true;
        for (const auto& k : transfer_knob_columns())
          if (knobs.count(k)) same &= r.knob(k) == knobs.at(k);
        if (same && r.gbps > 0 && (c.answer_us == 0 || bytes / r.gbps / 1e3 < c.answer_us)) c.answer_us = bytes / r.gbps / 1e3;
      }
      res.cases.push_back(c);
    }
    out.push_back(std::move(res));
  }
  return out;
}

// ---------------------------------------------------------------- the parts

StudyParts transfer_parts() {
  StudyParts s;
  s.measure = transfer_measure;
  s.tuning = [](const std::string& csv, const StudySchemas* schemas) { return transfer_tuning(read_transfer(csv, schemas)); };
  s.leave_one_out = [](const std::vector<std::string>& csvs, double tol) {
    std::vector<LooResult> out;
    for (const auto& c : csvs)
      for (auto& r : loo_transfer(c, tol)) out.push_back(std::move(r));
    return out;
  };
  s.peer_modes = std::make_shared<const PeerModeParts>(transfer_peer_modes());
  s.peer_mode_runs = "transfer/peer-modes";
  s.load = load_folder;
  s.caption = transfer_caption;
  s.claims = transfer_claims();
  s.absent = [](const Machine* m) {
    return "transfer (" + std::string(m && m->gpu_count < 2 ? "one GPU: no peer to transfer to" : "no transfer/transfer.csv") +
           ")";
  };
  s.name_beside = "transfer study";
  s.target_specs = &transfer_target_specs();
  s.order = {.studies = 10, .figures = 10, .claims = 10, .sections = 40, .targets = 10};
  return s;
}

}  // namespace pk::transfer
