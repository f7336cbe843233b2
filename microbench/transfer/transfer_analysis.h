#pragma once
// The transfer study's analysis (plain C++; built beside the study, the sweeps find it through
// the study's line of sweeps/CMakeLists.txt). Reads transfer-study CSVs and turns them into
// (a) a Table-1 style summary per mechanism and (b) the transfer tuning table: per machine,
// direction, pattern and message-size bucket, the mechanism and configuration to use, chosen
// with the measured noise in mind, and the fewest SMs reaching 90 % of the best; (c) the
// study's targets.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_measure.h"
#include "microbench/harness/study_parts.h"
#include "microbench/harness/targets.h"
#include "microbench/harness/tuning_table.h"

namespace pk::transfer {

// The knob columns of transfer.csv, in declaration order (pk::transfer::all_knobs()).
const std::vector<std::string>& transfer_knob_columns();

struct TransferRow {
  std::string sweep, mechanism, direction, pattern, status;
  uint64_t message_bytes = 0;
  std::vector<int> knobs;  // by transfer_knob_columns() index; 0 = the mechanism has no such knob
  int sms = 0;             // the `sms` knob; 0 for mechanisms without SMs (the copy engine)
  double gbps = 0, line_rate_gbps = 0;
  double time_us_median = 0, time_us_min = 0, time_us_max = 0, cv = 0;  // 0 = not recorded
  uint64_t src_gpu = 0, dst_gpu = 0;
  // nvbandwidth's figure for a row with a counterpart (microbench/transfer/transfer_ref.h), in
  // the row's gbps unit; "" / 0 where the row has none or the tool did not run.
  std::string ref_tool;
  double ref_gbps = 0, ref_ratio = 0;
  size_t line = 0;  // in the CSV
  bool device_initiated() const { return sms > 0; }
  int knob(const std::string& name) const;  // 0 if not applicable
  std::string config() const;      // "sms=132 threads=128 pipeline_depth=4 blocks_per_sm=1", declaration order
  std::string config_key() const;  // config without sms (the rows of one SM sweep share it)
  // The bandwidth of the slowest and the fastest sample (from time_us_max / time_us_min;
  // from +-2 cv where those are missing; gbps itself where neither is recorded).
  double gbps_low() const;
  double gbps_high() const;
};

struct TransferData : StudyFile {
  std::vector<TransferRow> rows;  // status "ok" only
  size_t skipped = 0, errors = 0;
};

// Throws std::runtime_error (file:line:field) on a malformed or foreign file. `schemas`: the
// declarations the header is checked against (the sweeps pass every registered study's, so
// that a foreign CSV is named by its study); nullptr: this study's own.
TransferData read_transfer(const std::string& path, const StudySchemas* schemas = nullptr);
std::vector<TransferRow> read_transfer_csv(const std::string& path,
                                           const StudySchemas* schemas = nullptr);  // read_transfer(path).rows

struct MechanismSummary {
  std::string mechanism, direction, pattern;
  double peak_gbps = 0, line_rate_gbps = 0;
  std::string peak_config;
  uint64_t peak_message = 0;
  uint64_t min_message_90 = 0;  // smallest message whose best row reaches 90 % of the peak
  int min_sms_90 = 0;           // fewest SMs whose best row reaches 90 % of the peak (0: n/a)
  uint64_t min_sms_90_message = 0;
  uint64_t min_message_80_line = 0;  // smallest message reaching 80 % of line rate (0: never)
  double pct_line() const { return line_rate_gbps > 0 ? 100 * peak_gbps / line_rate_gbps : 0; }
};
std::vector<MechanismSummary> summarize_mechanisms(const std::vector<TransferRow>& rows);

// The local-copy ceiling (the fastest copy within one GPU's HBM, any mechanism) and, per
// mechanism that runs on SMs, the fewest SMs whose best local row reaches 90 % of it: the
// one-GPU counterpart of Figure 3 (sms = 0: never reached in the rows).
struct LocalCeiling {
  double gbps = 0;
  std::string mechanism;
  uint64_t message = 0;
  struct Fewest {
    std::string mechanism;
    int sms = 0;
    uint64_t message = 0;
    double gbps = 0, best_gbps = 0;
  };
  std::vector<Fewest> fewest_sms_90;
};
LocalCeiling local_ceiling(const std::vector<TransferRow>& rows);
const MechanismSummary* find_summary(const std::vector<MechanismSummary>& s, const std::string& mech,
                                     const std::string& dir, const std::string& pattern = "one_way");
// The best one-way gbps of `mech` in `dir` at exactly `message` bytes (0 if not measured).
double best_at(const std::vector<TransferRow>& rows, const std::string& mech, const std::string& dir, uint64_t message);

// The tuning table (name "transfer"): one row per machine, direction, pattern, choice and
// power-of-two message-size bucket. choice "any" considers every mechanism (the copy
// engine counts as 0 SMs), "device" only those that run on SMs. Among the configurations
// whose sample range overlaps the fastest one's (within the measured noise), the one with
// the fewest SMs wins, then the simplest (mechanisms in registration order, then smaller
// knob values); the row says how many were tied, the fastest's own spread, and the gap to
// the best configuration outside the noise.
TuningTable transfer_tuning(const TransferData& d);

// The transfer study's targets (transfer_summary.md and the sweeps' report), and their results.
// elapsed_s < 0: the study's wall time is unknown.
const TargetSpecs& transfer_target_specs();
std::vector<TargetResult> transfer_targets(const TransferData& d, const std::vector<MechanismSummary>& s,
                                           double elapsed_s);

// How pkbench_compare matches and measures this study's points (the study's parts give it:
// PARTS on its line of sweeps/CMakeLists.txt).
StudyMeasure transfer_measure();

// The study's wall time with the build, from the timing.csv scripts/run.sh writes beside a transfer
// CSV (one row per invocation, named after its CSV): the last row of the main run (step
// "transfer", or its parts "transfer.<part>"; run.sh --as=NAME runs are named otherwise). `line`:
// that row's line in the file. nullopt when the file or such a row is missing.
struct MainRunElapsed {
  double seconds = -1;
  size_t line = 0;
};
std::optional<MainRunElapsed> main_run_elapsed(const std::string& timing_csv, const StudySchemas* schemas = nullptr);

// elapsed_s < 0: unknown.
std::string summary_markdown(const TransferData& d, const std::vector<MechanismSummary>& s, double elapsed_s);

// Leave-one-out of the transfer tuning table (microbench/harness/tuning_loo.h): one result per
// choice ("any", "device").
std::vector<LooResult> loo_transfer(const std::string& csv, double tolerance = 0.05);

// What the study gives the tools that span the studies (transfer_parts.cpp; PARTS on its line
// of sweeps/CMakeLists.txt).
StudyParts transfer_parts();

}  // namespace pk::transfer
