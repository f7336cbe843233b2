#pragma once
// The order of FlowTimer::samples(n, overlap_enqueue = true), apart from the GPU so that a CPU
// test checks it (timing.h): sample i+1 is queued behind its closed gate after sample i's gate
// opened and before sample i is waited for; a batch whose enqueue failed is followed by no
// other; every process opens as many gates as every other, whatever failed where.
#include <functional>
#include <string>

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

}  // namespace pk
