#pragma once
// results/<machine>/REPORT.md: the environment, every figure, our numbers beside the
// paper's claims and beside another committed machine, each study's section, and every target
// met or missed, all generated from the CSVs of the folder. The folder's layout (what
// scripts/run.sh writes) is read by fixed names, never guessed:
//   environment.txt                     the machine
//   <study>/...                         each study's CSVs, read by the study itself
//                                       (StudyParts::load: <study>/<study>.csv and what it keeps
//                                       beside it), its figures (*.png) beside them
//   <study>/virtual/*.csv               virtual-rank runs (listed, never judged)
//   <runs>/<single|ipc|vmm>/            one run of the studies per peer mode, where a study
//                                       keeps them (StudyParts::peer_mode_runs)
//   **/*.csv with the point-cost columns    what each point cost the harness (point_cost.h)
// What each study contributes, and in which order, is its StudyParts
// (microbench/harness/study_parts.h), found through the registry (sweeps/study_schema.h).
#include <memory>
#include <string>
#include <vector>

#include "microbench/harness/point_cost.h"
#include "sweeps/targets.h"

namespace pk::sweeps {

// One study's results in a folder (nullptr: the folder lacks it).
struct FolderStudy {
  const StudyParts* parts = nullptr;
  std::shared_ptr<const StudyResults> results;
};

// What a results folder holds, read with the studies' declarations.
struct ResultsFolder {
  std::string dir;
  std::vector<FolderStudy> studies;        // every study the report shows, in the registry's order
  std::vector<ModeResults> peer_modes;     // the peer-mode runs (single, ipc, vmm) where present
  std::vector<std::string> figures;        // every study's PNG files, relative to dir, in the figures' order
  std::vector<std::string> virtual_csvs;   // <study>/virtual/*.csv, relative to dir
  std::vector<PointCostSummary> point_costs;  // every CSV under dir with the point-cost columns
  std::string environment;                 // environment.txt
  const StudyResults* results(const std::string& study) const;  // nullptr: not in the folder
  const Machine* machine() const;          // the first study's (in the table's order) that names one
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

// Every target over the folder, every study's in the targets' order.
std::vector<TargetResult> all_targets(const ResultsFolder& f);

// other: nullptr for none.
std::string report_markdown(const ResultsFolder& here, const ResultsFolder* other, const std::string& command);

}  // namespace pk::sweeps
