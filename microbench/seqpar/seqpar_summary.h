#pragma once
// The sequence-parallel study's analysis, plain C++ on the harness's CSV reader: the ring
// KV pass per (ranks, H, S) (compute alone, transfer alone, each schedule's pass and the
// exposed transfer, the best SM split of inter_sm), the tuning rule (best schedule and split
// per (S, heads, ranks)), the study's targets (the ring's and, from pkbench_collectives'
// ulysses CSVs, the Ulysses collectives' against NCCL + reshape) and the summary markdown
// (pkbench_seqpar_summary).
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace pk::seqpar {

struct RingRow {
  std::string impl, status, verified, peer_mode;
  int seq = 0, heads = 0, ranks = 0, sms = 0;
  double step_us = 0, op_us = 0, link_per_useful = 0, link_nvml = -1;  // link_nvml: < 0 not measured
  bool ok() const { return status == "ok" && verified == "yes" && op_us > 0; }
};

struct RingData {
  std::vector<RingRow> rows;
  bool virtual_ranks = false;
};
RingData read_ring_csv(const std::string& path);  // std::runtime_error naming the file

// One (ranks, H, S) of the ring: every time a pass (N steps), microseconds; 0 = not measured.
struct RingShapeResult {
  int ranks = 0, heads = 0, seq = 0;
  double compute_us = 0, copy_us = 0;     // compute_only, copy_only
  std::map<std::string, double> pass_us;  // schedule -> its best pass (inter_sm: over its splits)
  int best_inter_sms = 0;
  std::string best;  // the fastest schedule of sequential, nccl_side, inter_sm, intra_sm
  double best_us = 0;
  double intra_link_per_useful = 0, intra_link_nvml = -1, inter_link_nvml = -1;  // NVML's: < 0 not measured
  // The transfer the best schedule hides: 1 - max(0, best - compute) / copy (0 where unknown).
  double hidden() const;
  // A step's compute (compute / N) takes at least as long as its transfer (copy / (N - 1)).
  bool compute_bound() const;
};
std::vector<RingShapeResult> ring_results(const RingData& d);

// The tuning rule: the measured shape of the same ranks and heads nearest in S (log scale; the
// smaller on a tie) answers; none of those ranks and heads: {"", 0}.
struct RingChoice {
  std::string schedule;
  int sms = 0;
};
RingChoice choose_seqpar(const std::vector<RingShapeResult>& table, int seq, int heads, int ranks);
std::string tuning_csv(const std::vector<RingShapeResult>& r);

// One Ulysses collective's rows (pkbench_collectives --preset=ulysses): ours' best and NCCL's
// time (the nccl-tests method) per (collective, bytes, mode, gpus).
struct UlyssesPoint {
  std::string collective, mode;
  uint64_t bytes = 0;
  int gpus = 0;
  double ours_us = 0, nccl_us = 0;
  std::string ours_impl;
};
std::vector<UlyssesPoint> read_ulysses(const std::vector<std::string>& paths);

struct Target {
  std::string id, what, threshold, measured, verdict;  // verdict: met, missed, not measured
};
std::vector<Target> seqpar_targets(const std::vector<RingShapeResult>& ring, const std::vector<UlyssesPoint>& ulysses);
std::string summary_markdown(const RingData& d, const std::vector<RingShapeResult>& ring,
                             const std::vector<UlyssesPoint>& ulysses);

}  // namespace pk::seqpar
