#pragma once
// Every study's targets, in the report's order (target_specs(): each study declares and judges
// its own in its analysis, microbench/<study>/, by the rules of microbench/harness/targets.h and
// verdict.h), and the comparison of one run of the studies per peer mode (single, ipc, vmm),
// each study judging its own table (StudyParts::peer_modes). The summaries, the peer-mode
// comparison and the report all print these same results.
#include <memory>
#include <string>
#include <vector>

#include "microbench/harness/study_parts.h"
#include "microbench/harness/targets.h"
#include "sweeps/study_schema.h"

namespace pk::sweeps {

// The studies with targets or a peer-mode comparison, in the report's order of targets.
std::vector<const StudyParts*> studies_by_targets();
// Every target of every study (the peer modes' after the targets of the last study they
// compare); the spec of `id` among them (std::logic_error if unknown).
const TargetSpecs& target_specs();
const TargetSpec& target_spec(const std::string& id);

// The studies compared across peer modes, in the report's order of targets.
std::vector<const StudyParts*> mode_studies();
// One run of the studies in one peer mode (MODE_DIR): each compared study's results where it
// has a CSV there.
struct ModeResults {
  std::string name, dir;
  std::vector<std::shared_ptr<const StudyResults>> runs;  // by mode_studies() index; nullptr: none there
  std::string timing;  // timing.txt beside the CSVs, if any
};
ModeResults load_mode(const std::string& name, const std::string& dir);
// The comparison as markdown (peer_modes.md) and each compared study's target (counted over
// every comparison), the first mode the reference.
std::string peer_modes_markdown(const std::vector<ModeResults>& modes, std::vector<TargetResult>* targets);

}  // namespace pk::sweeps
