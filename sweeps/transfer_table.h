#pragma once
// Reads transfer-study CSVs and turns them into (a) a Table-1 style summary per mechanism
// and (b) a tuning table: for each direction, pattern and message size, the fastest
// mechanism and configuration and the fewest SMs that stay within 10 % of it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pk::sweeps {

struct TransferRow {
  std::string sweep, mechanism, direction, pattern, gpu_name, status;
  uint64_t message_bytes = 0;
  // The knob columns this row fills (the declarations of pkbench_transfer's mechanisms).
  std::map<std::string, int> knobs;
  int sms = 0;  // the `sms` knob; 0 for mechanisms without SMs
  double gbps = 0, line_rate_gbps = 0;
  bool device_initiated() const { return sms > 0; }
  std::string config() const;      // "sms=132 blocks_per_sm=1 threads=128 pipeline_depth=4", knob order
  std::string config_key() const;  // config without sms (rows of one SM sweep share it)
};

// The knob columns of transfer.csv, in declaration order.
const std::vector<std::string>& transfer_knob_columns();

// Rows with status "ok" only. Throws std::runtime_error on a malformed file.
std::vector<TransferRow> read_transfer_csv(const std::string& path);

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

struct TuningEntry {
  std::string direction, pattern;
  uint64_t message_bytes = 0;
  TransferRow best;             // fastest row of any mechanism
  int best_min_sms = 0;         // fewest SMs within 10 % of best (0 for the copy engine)
  bool best_sm_swept = false;   // whether SM counts were measured for that configuration
  bool has_device = false;
  TransferRow device;           // fastest device-initiated row
  int device_min_sms = 0;
  double device_gbps_at_min_sms = 0;
  bool device_sm_swept = false;
};
std::vector<TuningEntry> tuning_table(const std::vector<TransferRow>& rows);

std::string tuning_csv(const std::vector<TuningEntry>& t);
// elapsed_s < 0: unknown.
std::string summary_markdown(const std::vector<TransferRow>& rows, const std::vector<MechanismSummary>& s,
                             double elapsed_s);

}  // namespace pk::sweeps
