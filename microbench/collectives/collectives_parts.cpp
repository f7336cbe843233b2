// What the collectives study gives the tools that span the studies
// (microbench/harness/study_parts.h): its tuning table and leave-one-out, and its parts of a
// folder's report (its row, Figure 6's claim, its section of ours against NCCL, its targets).
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "microbench/collectives/collectives_analysis.h"
#include "microbench/harness/format.h"
#include "microbench/harness/study_parts.h"
#include "pkbench/tuning.h"

namespace fs = std::filesystem;

namespace pk::coll {

namespace {

// <dir>/collectives/collectives.csv, read by each part as it needs it.
class CollResults final : public CsvPathResults {
 public:
  CollResults(const std::string& csv, const StudySchemas* schemas) : CsvPathResults("collectives", csv, schemas) {}
  void section(std::ostream& os, const std::string& dir) const override;
  std::vector<TargetResult> targets() const override {
    const CollMethod m = headline_method(read_collectives_info(csv));
    return collectives_targets(collective_points(csv, m), m);
  }
};

const CollResults* of(const StudyResults* r) { return dynamic_cast<const CollResults*>(r); }

// Ours against NCCL's best at every size both measured, under the headline method and the
// device-time view.
void CollResults::section(std::ostream& os, const std::string& dir) const {
  const CollectivesData d = read_collectives_info(csv);
  const CollMethod method = headline_method(d);
  os << "\n## Collectives (Figures 6, 15-17)\n\nFrom `" << relative_to(csv, dir)
     << "`: this suite's best implementation against NCCL's best configuration, same launch mode, at every size both "
        "measured; speedup = NCCL's / ours, both under the "
     << coll_method_text(method) << (method == CollMethod::nccltests ? " (the headline)" : "")
     << "; \"faster\" counts sizes beyond the noise. The device-time view (gated events) is given beside it. The "
        "paper: up to 1.79x over NCCL for the BF16 all-reduce on 8 GPUs (Figure 6).";
  if (fs::exists(dir + "/collectives/summary.md")) os << " Every size: [`collectives/summary.md`](collectives/summary.md).";
  os << "\n\n| view | collective | dtype | GPUs | mode | sizes | ours faster at | within noise | NCCL checked / off "
        "its tool | best speedup (size, impl) | lowest (size, impl) |\n|---|---|---|---:|---|---:|---:|---:|---:|---|---|\n";
  auto rows = [&](CollMethod m, const char* view) {
    for (const auto& c : collective_comparisons(collective_points(csv, m)))
      os << "| " << view << " | " << c.collective << " | " << c.dtype << " | " << c.gpus << " | " << c.launch_mode
         << " | " << c.sizes << " | " << c.faster << " | " << c.ties << " | " << c.checked << " / " << c.defective << " | "
         << ratio_text(c.best) << " (" << size_text(static_cast<uint64_t>(c.best_bytes)) << ", " << c.best_impl
         << ") | " << ratio_text(c.worst) << " (" << size_text(static_cast<uint64_t>(c.worst_bytes)) << ", "
         << c.worst_impl << ") |\n";
  };
  rows(method, method == CollMethod::nccltests ? "nccl-tests method" : "device time");
  if (method == CollMethod::nccltests) rows(CollMethod::device_time, "device time");
}

std::string all_reduce_over_nccl(const StudyResults* r, const std::string& dir) {
  if (!of(r)) return "";
  const std::string& csv = of(r)->csv;
  const CollMethod head = headline_method(read_collectives_info(csv));
  std::string out;
  for (const CollMethod m : {head, CollMethod::device_time}) {
    if (!out.empty() && m == head) break;
    const CollectiveSpeedup s = best_speedup_over_nccl(csv, "all_reduce", "bf16", m);
    if (s.speedup <= 0) continue;
    out += (out.empty() ? "up to " : "; device-time view: up to ") + ratio_text(s.speedup) + " (" + s.impl + " vs " +
           s.nccl_impl + ", " + size_text(static_cast<uint64_t>(s.bytes)) + ", " + s.launch_mode +
           (m == CollMethod::nccltests ? ", nccl-tests method" : "") + "; NCCL " + s.check.text() + ")";
  }
  return out.empty() ? out : out + " (`" + relative_to(csv, dir) + "`)";
}

// The study's figures: fig6_<collective>_<mode>.png, ablation_<mode>.png, ablation_cost_<mode>.png.
std::string collectives_caption(const std::string& base) {
  std::smatch m;
  if (std::regex_match(base, m, std::regex("fig6_(.+)_(eager|graph)\\.png"))) {
    const std::string c = m[1].str();
    const std::string which = c == "all_reduce"            ? "Figure 6 of the paper"
                              : c == "all_gather_cols"     ? "Figure 15 of the paper"
                              : c == "reduce_scatter_cols" ? "Figure 16 of the paper"
                              : c == "all_to_all_4d"       ? "Figure 17 of the paper"
                                                           : "Figure 6's view";
    return which + ": " + c + ", " + m[2].str() + " launches, time and bus bandwidth against size, ours beside NCCL";
  }
  if (std::regex_match(base, m, std::regex("ablation_(eager|graph)\\.png")))
    return "Figure 6's design overheads (" + m[1].str() + "): all-reduce two-shot with one-way signals and direct "
           "writes against the two-way handshake, staging through a FIFO, and both, beside NCCL";
  if (std::regex_match(base, m, std::regex("ablation_cost_(eager|graph)\\.png")))
    return "Figure 6's design overheads (" + m[1].str() + "): each factor's cost, time over the one-way direct "
           "two-shot's, against size";
  return "";
}

}  // namespace

namespace tn = pkbench::tuning;

LooResult loo_collectives(const std::string& csv, double tol) {
  const LooCsv c = read_loo_csv(csv);
  const int coll = c.col("collective"), dtype = c.col("dtype"), gpus = c.col("gpus"), mode = c.col("launch_mode"),
            bytes = c.col("bytes"), impl = c.col("impl"), config = c.col("config"), status = c.col("status"),
            t_med = c.col("time_us_median");
  const std::string machine = loo_machine(c);
  using Key = std::tuple<std::string, std::string, std::string, std::string, long long>;
  auto key = [&](const std::vector<std::string>& r) {
    return Key{r[coll], r[dtype], r[gpus], r[mode], loo_int(r[bytes])};
  };
  // `tuned` rows (answered from a table) are neither candidates nor the best.
  const int family = c.col("family");
  auto measured = [&](const std::vector<std::string>& r) { return r[status] == "ok" && r[family] != "tuned"; };
  std::set<Key> points;
  for (const auto& r : c.rows)
    if (measured(r)) points.insert(key(r));
  LooResult res;
  res.table = "collectives (" + std::filesystem::path(csv).filename().string() + ")";
  res.source = csv;
  res.tolerance = tol;
  for (const Key& p : points) {
    const auto& [cl, dt, g, m, b] = p;
    LooCase lc;
    lc.table = res.table;
    lc.csv = csv;
    lc.point = cl + " " + dt + " " + g + " GPUs " + m + " " + std::to_string(b) + " B";
    for (const auto& r : c.rows)
      if (measured(r) && key(r) == p && (lc.best_us == 0 || loo_real(r[t_med]) < lc.best_us))
        lc.best_us = loo_real(r[t_med]), lc.best = r[impl] + " (" + r[config] + ")";
    const std::string tmp = write_loo_csv(c, "coll", [&](const std::vector<std::string>& r) { return key(r) != p; });
    tn::CollectiveChoice a;
    try {
      tn::Tuner t(machine);
      t.add(api_table(collectives_tuning(tmp)));
      a = t.choose_collective(cl, static_cast<unsigned long long>(b), dt, static_cast<int>(loo_int(g)), m);
    } catch (const tn::Error& e) {
      a.why = e.what();
    }
    std::filesystem::remove(tmp);
    lc.basis = tn::to_string(a.basis);
    lc.answer = a.ok() ? a.impl + " (" + a.config + ")" : a.why;
    // The answered configuration: its grid (sms, threads) where the CSV has the knob columns,
    // else its config text. Where it was not run at this size (auto grids differ by size), the
    // implementation's own run there stands for it (said in the answer).
    const int sms = c.has("sms") ? c.col("sms") : -1, threads = c.has("threads") ? c.col("threads") : -1;
    auto same = [&](const std::vector<std::string>& r) {
      if (sms >= 0 && a.sms > 0) return loo_int(r[sms]) == a.sms && loo_int(r[threads]) == a.threads;
      return r[config] == a.config;
    };
    for (const bool exact : {true, false}) {
      if (!a.ok() || lc.answer_us > 0) break;
      for (const auto& r : c.rows)
        if (measured(r) && key(r) == p && r[impl] == a.impl && (!exact || same(r)) &&
            (lc.answer_us == 0 || loo_real(r[t_med]) < lc.answer_us)) {
          lc.answer_us = loo_real(r[t_med]);
          if (!exact) lc.answer = a.impl + " (its own grid here: " + r[config] + ")";
        }
    }
    res.cases.push_back(lc);
  }
  return res;
}

StudyParts collectives_parts() {
  StudyParts s;
  s.measure = collectives_measure;
  s.tuning = [](const std::string& csv, const StudySchemas*) { return collectives_tuning(csv); };
  s.virtual_tuning = true;
  s.leave_one_out = [](const std::vector<std::string>& csvs, double tol) {
    std::vector<LooResult> out;
    for (const auto& c : csvs) out.push_back(loo_collectives(c, tol));
    return out;
  };
  s.load = load_csv<CollResults>("collectives/collectives.csv");
  s.caption = collectives_caption;
  s.claims = {{"PK all-reduce over NCCL's best (BF16)", "up to 1.79x (8 GPUs)", all_reduce_over_nccl,
               "collectives study (Figure 6): best of ours / best of NCCL at one size, both timed alike; NCCL rows off "
               "their tool excluded"}};
  s.absent = [](const Machine*) { return std::string("collectives (Figures 6, 15-17: not measured here)"); };
  s.name_beside = "collectives study";
  s.target_specs = &collectives_target_specs();
  s.order = {.studies = 40, .figures = 40, .claims = 40, .sections = 10, .targets = 50};
  return s;
}

}  // namespace pk::coll
