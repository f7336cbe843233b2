#pragma once
// results/<machine>/REPORT.md: the environment, every figure, our numbers beside the
// paper's claims and beside another committed machine, the tuning table, and every target
// met or missed, all generated from the CSVs of the folder. The folder's layout (what
// scripts/run.sh writes) is read by fixed names, never guessed:
//   environment.txt                     the machine
//   <study>/<study>.csv                 each study's main CSV (transfer, sync, gemm, collectives,
//                                       primitives, fused), its figures (*.png) beside it
//   <study>/virtual/*.csv               virtual-rank runs (listed, never judged)
//   transfer/timing.csv                 the transfer study's wall time (its last row)
//   transfer/peer-modes/<mode>/         transfer.csv and sync.csv per peer mode
//   fused/fused_table3.csv, fused_fig5.csv   the fused study's K sweep and SM split
//   **/*.csv with the point-cost columns    what each point cost the harness (point_cost.h)
#include <optional>
#include <string>
#include <vector>

#include "microbench/harness/point_cost.h"
#include "sweeps/targets.h"

namespace pk::sweeps {

// What a results folder holds, read with the studies' declarations.
struct ResultsFolder {
  std::string dir;
  std::optional<TransferData> transfer;
  std::vector<MechanismSummary> transfer_summary;
  std::optional<SyncData> sync;
  std::optional<GemmData> gemm;
  std::vector<ModeResults> peer_modes;     // transfer/peer-modes/<single|ipc|vmm>/
  std::vector<std::string> figures;        // every study's PNG files, relative to dir, in study order
  std::string collectives_csv;             // "" when absent
  std::string primitives_csv;              // "" when absent
  std::optional<FusedSummary> fused;
  std::vector<KSweepRow> fused_k_sweep;    // Table 3 (empty if absent)
  std::string fused_dir;                   // dir/fused
  std::vector<std::string> virtual_csvs;   // <study>/virtual/*.csv, relative to dir
  std::vector<PointCostSummary> point_costs;  // every CSV under dir with the point-cost columns
  std::string environment;                 // environment.txt
  double transfer_elapsed_s = -1;          // the transfer study's wall time with the build, if recorded
  std::string elapsed_source;
  std::string machine_key() const;         // from the first CSV; else the folder's name
  std::string describe() const;
};
ResultsFolder load_results(const std::string& dir);
// What each point cost the harness, for every CSV under `dir` (any depth, in path order) that
// has the point-cost columns; each named relative to `dir`.
std::vector<PointCostSummary> point_costs_in(const std::string& dir);

// One paper claim: how the paper puts it and how this suite measures it.
struct ClaimRow {
  std::string claim, paper, ours, other, note;
};
std::vector<ClaimRow> paper_claims(const ResultsFolder& here, const ResultsFolder* other);

// Every target over the folder: transfer, sync, peer modes, GEMM, fused, collectives, primitives.
std::vector<TargetResult> all_targets(const ResultsFolder& f);

// other: nullptr for none.
std::string report_markdown(const ResultsFolder& here, const ResultsFolder* other, const std::string& command);

}  // namespace pk::sweeps
