// What the sync study gives the tools that span the studies (microbench/harness/study_parts.h):
// its side of the peer-mode comparison (every cross-GPU latency) and its parts of a folder's
// report (its row, the paper's 64 ns / 832 ns claims, the latencies beside another machine's,
// its targets).
#include <cmath>

#include "microbench/harness/format.h"
#include "microbench/harness/study_parts.h"
#include "microbench/sync/sync_analysis.h"


namespace pk::sync {

namespace {

class SyncResults final : public FileResults<SyncData> {
 public:
  SyncResults(const std::string& csv, const StudySchemas* schemas) : FileResults(read_sync(csv, schemas)) {}
  void table_rows(std::ostream& os, const std::string& dir, const std::string& mode) const override {
    if (mode.empty())
      os << "| sync | `sync/sync.csv` | " << data.rows.size() << " | " << dash_if_empty(data.git_commit) << " | "
         << dash_if_empty(data.peer_mode) << " |\n";
    else
      os << "| sync (" << mode << ") | `" << relative_to(data.path, dir) << "` | " << data.rows.size() << " | "
         << dash_if_empty(data.git_commit) << " | " << data.peer_mode << " |\n";
  }
  void beside(std::ostream& os, const StudyResults& other, const std::string& key, const std::string& okey) const override;
  std::vector<TargetResult> targets() const override { return sync_targets(data); }
  void targets_note(std::ostream& os) const override {
    os << " The sync study's latencies are in the claims table above; its own targets concern how they were "
          "measured.";
  }
};

const SyncResults* of(const StudyResults* r) { return dynamic_cast<const SyncResults*>(r); }

// Synchronisation, one-way (or per operation) medians of every primitive both folders measured.
void SyncResults::beside(std::ostream& os, const StudyResults& other, const std::string& key,
                         const std::string& okey) const {
  const SyncResults* o_ = of(&other);
  if (!o_) return;
  os << "Synchronisation, one-way (or per operation) medians of every primitive both measured:\n\n| level | "
        "primitive | scope | semantics | placement | x | "
     << key << " | " << okey << " | " << okey << " / " << key << " |\n|---|---|---|---|---|---:|---:|---:|---:|\n";
  for (const auto& r : data.rows) {
    if (r.status != "ok") continue;
    const SyncRow* o = find_sync(o_->data.rows, r.level, r.primitive, r.scope, r.semantics, r.placement, r.participants);
    if (!o || o->scope != r.scope || o->semantics != r.semantics || o->placement != r.placement) continue;
    os << "| " << r.level << " | " << r.primitive << " | " << r.scope << " | " << r.semantics << " | " << r.placement
       << " | " << r.participants << " | " << ns_text(r.one_way_ns) << " | " << ns_text(o->one_way_ns) << " | "
       << num(r.one_way_ns > 0 ? o->one_way_ns / r.one_way_ns : 0, 2) << " |\n";
  }
}

const SyncRow* sync_find(const StudyResults* r, const char* level, const char* prim, const char* scope, const char* sem) {
  return of(r) ? find_sync(of(r)->data.rows, level, prim, scope, sem, "") : nullptr;
}

std::vector<PaperClaim> sync_claims() {
  return {
    {"intra-SM synchronisation (mbarrier)", "~64 ns",
     [](const StudyResults* f, const std::string&) -> std::string {
       const auto* r = sync_find(f, "intra_sm", "mbarrier_pingpong", "", "");
       return r ? ns_text(r->one_way_ns) + " one-way" : "";
     },
     "half a ping-pong between two warps"},
    {"inter-SM synchronisation through L2/HBM", "~832 ns",
     [](const StudyResults* f, const std::string&) -> std::string {
       const auto* r = sync_find(f, "inter_sm", "flag_pingpong", "gpu", "release_acquire");
       return r ? ns_text(r->one_way_ns) + " one-way" : "";
     },
     "release/acquire flag between two SMs, gpu scope"},
    {"inter-SM / intra-SM", "~13x",
     [](const StudyResults* f, const std::string&) -> std::string {
       const auto* a = sync_find(f, "intra_sm", "mbarrier_pingpong", "", "");
       const auto* b = sync_find(f, "inter_sm", "flag_pingpong", "gpu", "release_acquire");
       return a && b ? ratio_text(b->one_way_ns / a->one_way_ns, 1) : "";
     },
     ""},
  };
}

ModeTally sync_modes_table(std::ostream& os, const std::vector<std::string>& modes,
                           const std::vector<const StudyResults*>& runs, const TargetSpec& spec) {
  static const std::vector<SyncRow> none;
  auto rows = [&](size_t i) -> const std::vector<SyncRow>& { return of(runs[i]) ? of(runs[i])->data.rows : none; };
  ModeTally tally;
  os << "\n## Cross-GPU synchronisation (one-way, median)\n\n";
  mode_table_head(os, "| primitive | semantics | placement |", modes, "", {"within " + num(spec.value, 0) + " %"});
  for (const auto& r : rows(0)) {
    if (r.level != "cross_gpu" || r.status != "ok") continue;
    os << "| " << r.primitive << " x" << r.participants << " | " << r.semantics << " | " << r.placement << " |";
    std::vector<double> v;
    for (size_t m = 0; m < modes.size(); ++m) {
      const SyncRow* x = find_sync(rows(m), r.level, r.primitive, r.scope, r.semantics, r.placement, r.participants);
      v.push_back(x ? x->one_way_ns : std::nan(""));
    }
    const bool ok = mode_value_cells(os, v, 0, " ns", spec.value / 100);
    tally.count(ok, r.primitive + " " + r.semantics);
    os << " " << (ok ? "yes" : "**no**") << " |\n";
  }
  return tally;
}

// Every cross-GPU latency, each mode against the first.
PeerModeParts sync_peer_modes() {
  const TargetSpec spec{"peer_modes.sync", "results/h200x2/transfer/peer-modes/README.md",
                        "every cross-GPU latency, ipc/vmm against single, within", "<=", 5, " %"};
  return {load_csv<SyncResults>("sync.csv"), spec, "every cross-GPU latency within " + num(spec.value, 0) + " %",
          sync_modes_table, "cross-GPU sync, ", "latencies"};
}

}  // namespace

StudyParts sync_parts() {
  StudyParts s;
  s.measure = sync_measure;
  s.peer_modes = std::make_shared<const PeerModeParts>(sync_peer_modes());
  s.load = load_csv<SyncResults>("sync/sync.csv");
  s.caption = [](const std::string& figure) -> std::string {
    if (figure.rfind("sync_latency", 0) != 0) return "";
    return "Synchronisation latency per primitive (Section 3.1.3: ~64 ns intra-SM, ~832 ns inter-SM), "
           "median with p10..p90";
  };
  s.claims = sync_claims();
  s.target_specs = &sync_target_specs();
  s.order = {.studies = 20, .figures = 20, .claims = 20, .sections = 0, .targets = 20};
  return s;
}

}  // namespace pk::sync
