#include "sweeps/targets.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "microbench/harness/format.h"
#include "sweeps/study_schema.h"

namespace fs = std::filesystem;

namespace pk::sweeps {

const TargetSpecs& target_specs() {
  static const TargetSpecs v = [] {
    // The peer modes' (judged here); the studies' own lists are their analyses'.
    const TargetSpecs here({
        {"peer_modes.transfer", "results/h200x2/transfer/peer-modes/README.md",
         "every mechanism's peak and fewest SMs to 90 % of it, ipc/vmm against single, within", "<=", 2, " %"},
        {"peer_modes.sync", "results/h200x2/transfer/peer-modes/README.md",
         "every cross-GPU latency, ipc/vmm against single, within", "<=", 5, " %"},
    });
    std::vector<TargetSpec> all;
    for (const auto* list : {&pk::transfer::transfer_target_specs(), &pk::sync::sync_target_specs(), &here,
                             &pk::gemm::gemm_target_specs(), &pk::fused::fused_target_specs(), &pk::coll::collectives_target_specs(),
                             &pk::prim::primitives_target_specs()})
      all.insert(all.end(), list->begin(), list->end());
    return TargetSpecs(std::move(all));
  }();
  return v;
}

const TargetSpec& target_spec(const std::string& id) { return target_specs()(id); }

namespace {

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

ModeResults load_mode(const std::string& name, const std::string& dir) {
  ModeResults m;
  m.name = name;
  m.dir = dir;
  if (fs::exists(dir + "/transfer.csv")) {
    m.transfer = read_transfer(dir + "/transfer.csv", &registered_studies());
    m.summary = summarize_mechanisms(m.transfer.rows);
    m.has_transfer = true;
  }
  if (fs::exists(dir + "/sync.csv")) {
    m.sync = read_sync(dir + "/sync.csv", &registered_studies());
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
    TargetResult t{id, head + std::to_string(checked - missed) + " of " + std::to_string(checked) + " " + what + " within",
                   spec.text(), missed ? Verdict::missed : Verdict::met, misses.empty() ? "" : " (outside: " + misses + ")"};
    t.what = spec.what;
    t.origin = spec.origin;
    return t;
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
