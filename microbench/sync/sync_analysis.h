#pragma once
// The sync study's analysis (plain C++; built beside the study, the sweeps find it through the
// study's line of sweeps/CMakeLists.txt). Reads sync-study CSVs and writes sync_summary.md:
// every measured primitive, and the paper's numbers (64 ns mbarrier, 832 ns through HBM, up
// to 4.5x for library-style access) beside ours, with the ratios taken from one run; the
// study's targets.
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_measure.h"
#include "microbench/harness/targets.h"

namespace pk::sync {

struct SyncRow {
  std::string level, primitive, scope, semantics, placement, gpu_name, clock_source, status, error;
  int participants = 0;
  double one_way_ns = 0, round_trip_ns = 0, spread_ns = 0, gbps = 0, clock_resolution_ns = 0;
  double p10_ns = 0, p90_ns = 0;  // of what was timed (the round trip for ping-pongs); 0: not recorded
  int samples = 0;
  size_t line = 0;
};

struct SyncData : StudyFile {
  std::vector<SyncRow> rows;  // every status
};

// Throws std::runtime_error (file:line:field) on a malformed or foreign file. `schemas`: the
// declarations the header is checked against (the sweeps pass every registered study's);
// nullptr: this study's own.
SyncData read_sync(const std::string& path, const StudySchemas* schemas = nullptr);
std::vector<SyncRow> read_sync_csv(const std::string& path,
                                   const StudySchemas* schemas = nullptr);  // read_sync(path).rows

// The first ok row matching; nullptr if none. Empty strings match anything.
const SyncRow* find_sync(const std::vector<SyncRow>& rows, const std::string& level, const std::string& primitive,
                         const std::string& scope, const std::string& semantics, const std::string& placement = "",
                         int participants = 0);

// The sync study's targets (the sweeps' report): every latency a median of >= 1000 operations,
// every row with its clock source and measured resolution.
const TargetSpecs& sync_target_specs();
std::vector<TargetResult> sync_targets(const SyncData& d);

// How pkbench_compare matches and measures this study's points (registered by COMPARE on the
// study's line of sweeps/CMakeLists.txt).
StudyMeasure sync_measure();

std::string sync_summary_markdown(const std::vector<SyncRow>& rows);

}  // namespace pk::sync
