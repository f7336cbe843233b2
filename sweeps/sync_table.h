#pragma once
// Reads sync-study CSVs and writes sync_summary.md: every measured primitive, and the
// paper's numbers (64 ns mbarrier, 832 ns through HBM, up to 4.5x for library-style
// access) beside ours, with the ratios taken from one run.
#include <string>
#include <vector>

namespace pk::sweeps {

struct SyncRow {
  std::string level, primitive, scope, semantics, placement, gpu_name, clock_source, status, error;
  int participants = 0;
  double one_way_ns = 0, round_trip_ns = 0, spread_ns = 0, gbps = 0, clock_resolution_ns = 0;
  int samples = 0;
};

// All rows (any status); throws std::runtime_error on a malformed file.
std::vector<SyncRow> read_sync_csv(const std::string& path);

// The first ok row matching; nullptr if none. Empty strings match anything.
const SyncRow* find_sync(const std::vector<SyncRow>& rows, const std::string& level, const std::string& primitive,
                         const std::string& scope, const std::string& semantics, const std::string& placement = "",
                         int participants = 0);

std::string sync_summary_markdown(const std::vector<SyncRow>& rows);

}  // namespace pk::sweeps
