#pragma once
// The order of FlowTimer::samples(n, overlap_enqueue = true), apart from the GPU so that a CPU
// test checks it (timing.h): sample i+1 is queued behind its closed gate after sample i's gate
// opened and before sample i is waited for; a batch whose enqueue failed is followed by no
// other; every process opens as many gates as every other, whatever failed where. Also
// FlowTimer::calibrate's decisions (iters_for, warmup_done), for the same reason.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace pk {

struct OverlapSteps {
  // Queues a batch into event slot `slot` (0 or 1) behind an armed gate; "" or what failed.
  std::function<std::string(int slot)> enqueue;
  // Opens the gate armed last (collective: every process calls it alike).
  std::function<void()> open;
  // Waits for the batch of `slot` and takes its sample (collective). Where any process failed
  // (`err` here, or its own), it throws on every process, after releasing a `pending` batch
  // (one more open()) and draining it.
  std::function<void(int slot, const std::string& err, bool pending)> finish;
};

inline void overlapped_samples(int n, const OverlapSteps& s) {
  if (n < 1) return;
  std::string err = s.enqueue(0);
  for (int i = 0; i < n; ++i) {
    s.open();
    // Queued while sample i runs; its gate opens at the next open(), once finish() has waited
    // for sample i on every flow of every process: no span starts before the last one ended.
    const bool pending = i + 1 < n;
    std::string next_err;
    if (pending && err.empty()) next_err = s.enqueue((i + 1) % 2);
    s.finish(i % 2, err, pending);
    err = next_err;
  }
}

// FlowTimer::calibrate's operations per sample from its warm-up runs' per-operation times
// (their median; an odd count's middle, an even count's mean of the middle two), between 1 and
// `max_k` (the launch queue's budget over every process).
inline int iters_for(std::vector<double> per_op, double target_sample_ms, int max_k) {
  max_k = std::max(1, max_k);
  if (per_op.empty()) return max_k;
  std::sort(per_op.begin(), per_op.end());
  const size_t n = per_op.size();
  const double median = n % 2 ? per_op[n / 2] : 0.5 * (per_op[n / 2 - 1] + per_op[n / 2]);
  const int k = median > 0 ? static_cast<int>(std::ceil(target_sample_ms / median)) : max_k;
  return std::clamp(k, 1, max_k);
}

// The warm-up runs FlowTimer::calibrate's count comes from: with an ungated first run
// (TimingOptions::ungated_first_run), the runs after it where there are any. Ungated, the flows
// start one after another as the host queues them (GPU by GPU, process by process), and a flow
// that waits inside the operation for a later one times that skew as well; a lone ungated run
// (an operation that outlasted the warm-up alone) is all there is to count from.
inline std::vector<double> count_basis(std::vector<double> per_op, bool ungated_first) {
  if (ungated_first && per_op.size() > 1) per_op.erase(per_op.begin());
  return per_op;
}

// Whether FlowTimer::calibrate's warm-up may stop after its runs so far (`per_op`, each run's
// time per operation; `elapsed_ms`, the longest host time since the first began, over every
// process): once it lasted the warm-up time, after `min_runs` runs (TimingOptions::warmup_runs,
// 2 by default: the count comes from their median), or, unless more than 2 were asked for,
// after one when no second run could change
// the count iters_for picks (`fixed_k`: a fixed count; or max_k of 1; or a run of at least twice
// the target, as the median of it and any other time is at least the target).
// The one-run stop is what saves time: an operation longer than the warm-up (a 1 GiB copy at
// 1/4 of a GPU's SMs, a message per copy-engine call) ran twice before; it runs once now, and the
// samples use the count two runs would have given.
inline bool warmup_done(const std::vector<double>& per_op, double elapsed_ms, double warmup_ms,
                        double target_sample_ms, int max_k, bool fixed_k, int min_runs = 2) {
  if (per_op.empty() || elapsed_ms < warmup_ms) return false;
  if (per_op.size() >= static_cast<size_t>(std::max(1, min_runs))) return true;
  return per_op.size() == 1 && min_runs <= 2 && (fixed_k || max_k <= 1 || per_op[0] >= 2 * target_sample_ms);
}

}  // namespace pk
