#pragma once
// The primitives study's targets (results/*/primitives/, the sweeps' report): this suite's
// fastest signal against the fastest library signal of the same protocol and memory ordering,
// its fastest dependent load against the library's fastest load at the same placement; one
// run. Plain C++, by the rules of microbench/harness/targets.h and verdict.h.
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/targets.h"

namespace pk::prim {

const pk::TargetSpecs& primitives_target_specs();
// The targets judged on the CSV at `path`. `schemas`: the declarations its header is checked
// against (the sweeps pass every registered study's); nullptr: this study's own.
std::vector<pk::TargetResult> primitives_targets(const std::string& path, const StudySchemas* schemas = nullptr);

}  // namespace pk::prim
