#pragma once
// The expert-parallel study's analysis, plain C++ on the harness's CSV reader: an ep CSV read
// by column name, the best configuration of each implementation per point, the SM sweep
// (the fewest SMs reaching 90 % of an implementation's best), the study's targets and the
// summary markdown (pkbench_ep_summary).
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"

namespace pk::ep {

struct EpRow {
  std::string op, impl, family, routing, status, verified, peer_mode, ref_tool;
  int tokens = 0, hidden = 0, experts = 0, topk = 0, ranks = 0, sms = 0, ref_sms = 0;
  double dispatch_us = 0, dispatch_p10 = 0, dispatch_p90 = 0;
  double combine_us = 0, combine_p10 = 0, combine_p90 = 0, total_us = 0;
  double dispatch_gbps = 0, combine_gbps = 0;
  double ref_dispatch_us = 0, ref_combine_us = 0, ref_time_us = 0;
  bool ok() const { return status == "ok" && verified == "yes" && total_us > 0; }
};

struct EpData {
  std::string path;
  Machine machine;
  std::vector<EpRow> rows;
  bool virtual_ranks = false;  // peer_mode virtual: HBM, not NVLink
};
// Throws std::runtime_error naming the file (and line) for anything malformed or foreign.
EpData read_ep_csv(const std::string& path);

// The fastest ok row of `impl` at (op, routing, T) over its SM counts, of at most `max_sms`
// SMs when > 0 (rows without an SM count always qualify); nullptr when none.
const EpRow* best_row(const EpData& d, const std::string& op, const std::string& impl, const std::string& routing, int tokens,
                      int max_sms = 0);
// The fastest ok row of our implementations (family pk) of op at (routing, T).
const EpRow* best_ours(const EpData& d, const std::string& op, const std::string& routing, int tokens,
                       const std::vector<std::string>& impls);

// One implementation's SM sweep at one point.
struct SmSweep {
  std::string op, impl, routing;
  int tokens = 0;
  double best_us = 0;
  int best_sms = 0;
  int fewest_sms_90 = 0;  // the fewest SMs whose time is within best / 0.9 (90 % of its best rate)
  int sms_measured = 0;
};
std::vector<SmSweep> sm_sweeps(const EpData& d);
inline constexpr double kSweepFraction = 0.9;

// The targets of the study's issue, from one run's rows.
struct EpTarget {
  std::string id, what, threshold, measured, verdict;  // verdict: met, missed, not measured
};
std::vector<EpTarget> ep_targets(const EpData& d);
std::string targets_markdown(const std::vector<EpTarget>& t);

std::string summary_markdown(const EpData& d);

// The distinct values of an int column of the ok rows matching op (and routing when not "").
std::vector<int> tokens_of(const EpData& d, const std::string& op, const std::string& routing = "");
std::vector<std::string> routings_of(const EpData& d, const std::string& op);

}  // namespace pk::ep
