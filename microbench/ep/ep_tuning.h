#pragma once
// The study's tuning table and its rule, plain C++: for every measured shape (H, E, TopK,
// ranks), routing and T, the dispatch + combine implementation with the lowest time at its
// best SM count, and the fewest SMs within 90 % of that best (ep_summary.h's SM sweep), so a
// program spends no more SMs than the rate needs. pkbench_ep_summary writes it
// (ep_tuning.csv); EpTuner::choose_ep answers a program's own shapes from it.
// Rule for T not measured (stated once, as pkbench/tuning.h states its own): the measured T
// of the same (H, TopK, ranks, routing) rows; exact: `measured`; strictly between the
// smallest and the largest: the neighbour nearer on a log2 scale (equal distance: the one
// using fewer SMs), `interpolated`; outside: refused. Virtual-rank rows measure HBM, not
// NVLink: refused as tuning input unless explicitly allowed (their table is then marked so).
#include <string>
#include <vector>

#include "microbench/ep/ep_summary.h"

namespace pk::ep {

struct EpTuningRow {
  std::string machine;  // results/<machine> key ("h100x4"; "-virtualN" for virtual ranks)
  int hidden = 0, experts = 0, topk = 0, ranks = 0, tokens = 0;
  std::string routing, impl;
  int sms = 0;             // 0: the implementation picks (NCCL)
  double total_us = 0;     // at `sms`
  double best_us = 0;      // the implementation's best over its SM counts
};

// Throws std::runtime_error for a CSV of virtual ranks unless allow_virtual.
std::vector<EpTuningRow> tuning_rows(const EpData& d, bool allow_virtual);
const std::vector<std::string>& tuning_columns();
void write_tuning_csv(const std::string& path, const std::vector<EpTuningRow>& rows);
std::vector<EpTuningRow> read_tuning_csv(const std::string& path);

struct EpChoice {
  std::string impl;  // "" when refused
  int sms = 0;
  std::string basis;  // measured, interpolated, refused
  std::string why;    // the rows used, or why refused
  bool ok() const { return !impl.empty(); }
};

class EpTuner {
 public:
  explicit EpTuner(std::vector<EpTuningRow> rows) : rows_(std::move(rows)) {}
  EpChoice choose_ep(int tokens, int hidden, int topk, int ranks, const std::string& routing = "uniform") const;

 private:
  std::vector<EpTuningRow> rows_;
};

}  // namespace pk::ep
