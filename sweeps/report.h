#pragma once
// results/<machine>/REPORT.md: the environment, every figure, our numbers beside the
// paper's claims and beside another committed machine, the tuning table, and every target
// met or missed, all generated from the CSVs of the folder (and its subfolders gemm/,
// peer-modes/<mode>/, collectives/, fused/).
#include <optional>
#include <string>
#include <vector>

#include "targets.h"

namespace pk::sweeps {

// What a results folder holds, read with the studies' declarations.
struct ResultsFolder {
  std::string dir;
  std::optional<TransferData> transfer;
  std::vector<MechanismSummary> transfer_summary;
  std::optional<SyncData> sync;
  std::optional<GemmData> gemm;            // dir/gemm.csv or dir/gemm/gemm.csv
  std::vector<ModeResults> peer_modes;     // dir/peer-modes/<single|ipc|vmm>/
  std::vector<std::string> figures;        // PNG files, relative to dir
  std::string collectives_csv;             // dir/collectives.csv or the largest study CSV in dir/collectives/
  std::string primitives_csv;              // dir/primitives.csv or dir/primitives/primitives.csv
  std::optional<FusedSummary> fused;       // dir/fused/fused.csv (or dir/fused.csv)
  std::vector<KSweepRow> fused_k_sweep;    // Table 3: fused_table3.csv beside it (empty if absent)
  std::string fused_dir;                   // the folder holding fused.csv
  std::vector<std::string> sub_figures;    // PNG files of collectives/ and fused/, relative to dir
  std::string environment;                 // environment.txt
  double transfer_elapsed_s = -1;          // the transfer study's wall time with the build, if recorded
  std::string elapsed_source;
  std::string machine_key() const;         // from the first CSV; else the folder's name
  std::string describe() const;
};
ResultsFolder load_results(const std::string& dir);

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
