#pragma once
// Leave-one-out validation of pkbench/tuning.h's rule for points nobody measured, as
// pkbench_tune_loo prints it: each study with a tuning table validates its own CSVs
// (StudyParts::leave_one_out; the method: microbench/harness/tuning_loo.h); here, the results
// of every study together.
#include <string>
#include <vector>

#include "microbench/harness/tuning_loo.h"

namespace pk::sweeps {

// A summary (per table: hidden points, refused, not measured, evaluable, within, fraction,
// worst case; and over all tables) and every case as CSV.
std::string loo_markdown(const std::vector<LooResult>& results);
std::string loo_csv(const std::vector<LooResult>& results);

}  // namespace pk::sweeps
