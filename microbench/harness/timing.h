#pragma once
// The measurement method (docs/measurement.md) for any set of concurrent flows (one stream of
// back-to-back operations each, on one or more GPUs, in one or more processes):
//   gate every stream -> start events -> k operations per stream -> stop events -> open gate
// so the host's enqueue cost stays outside the timed region and all GPUs start together.
// A step's time is the slowest flow's, over every process (MPI_MAX). Every process calls
// calibrate() and sample() the same number of times, even one with no flow of its own.
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "microbench/harness/device_runtime.h"

namespace pk {

struct TimingOptions {
  int samples = 7;
  // Per point, after the study-wide warm-up: enough for a few operations and the calibration.
  // 20 ms here and a 10 ms gap cost 30 of a collective point's 43 ms of harness time and moved
  // no result: 279 points measured both ways agreed to a median ratio of 1.000 (p10 0.996, p90
  // 1.006; results/h100x1/harness-cost/ at commit 10fd089).
  double warmup_ms = 2;
  // Warm-up runs of one operation at least (sample_schedule.h: warmup_done); the samples'
  // operation count comes from their median. 2: one slow first run cannot set it alone.
  int warmup_runs = 2;
  // The warm-up's first run launches without the start gate: it is then the point's first
  // launch of its operation, and a library that loads kernels at their first launch (cuBLASLt,
  // NCCL) loads them there; a load waits for an idle GPU, which never comes behind a spinning
  // gate. A study whose operation launches such a library sets this instead of running the
  // operation once more before calibrate(). That run's time counts toward the warm-up's; the
  // operations per sample come from the gated runs after it, or from it alone where none follows
  // (sample_schedule.h: count_basis): its span carries the host's queueing (and a load), which
  // can only make samples shorter, never a figure wrong.
  bool ungated_first_run = false;
  double target_sample_ms = 2;   // a sample batches enough operations to last this long
  int max_iters_per_sample = 1000;
  // > 0: every sample runs exactly this many operations, whatever they cost (so that
  // alternatives compared at one point run the same count); calibrate() then only warms up,
  // and refuses a count the launch queue cannot hold behind the gate.
  int fixed_iters_per_sample = 0;
  int max_enqueued = 512;        // calls queued behind one gate (the launch queue is finite)
  double gap_ms = 0;             // idle between points (none by default: nccl-tests does not idle between sizes)
  double timeout_ms = 2000;      // any spin-wait, the start gate included

  // The GEMM-bound studies' defaults (gemm, fused): 10 samples of about 20 ms after 100 ms
  // of warm-up, points `gap` ms apart.
  static TimingOptions gemm_bound(double gap) {
    TimingOptions t;
    t.samples = 10;
    t.warmup_ms = 100;
    t.target_sample_ms = 20;
    t.gap_ms = gap;
    return t;
  }
};

struct Flow {
  int index = 0;   // this flow's number among all flows of the step (every process)
  int gpu = 0;     // the issuing GPU, driven by this process
  cudaStream_t stream = nullptr;
  int enqueues_per_op = 1;  // calls one op puts in the stream (CE: one per message)
  // Enqueues operation number `op` on `stream`; the current device is already `gpu`.
  std::function<void(int op)> enqueue;
};

struct Sample {
  double step_ms_per_op = 0;             // slowest flow of every process
  std::vector<double> flow_ms_per_op;    // every flow's own events, indexed by Flow::index
};

class FlowTimer {
 public:
  // `flows`: this process's flows; `total_flows`: the step's flows over every process.
  FlowTimer(PeerGroup& group, std::vector<Flow> flows, int total_flows, Gate& gate, StatusBoard& status,
            const TimingOptions& opt);
  ~FlowTimer();
  FlowTimer(const FlowTimer&) = delete;
  FlowTimer& operator=(const FlowTimer&) = delete;

  // Warm-up runs (single ops; the first ungated with opt.ungated_first_run) for opt.warmup_ms,
  // two at least unless a second could not change the count (sample_schedule.h: warmup_done);
  // sets and returns the operations per sample (the same on every process). Its host time is
  // the point's `warm-up` part (point_cost.h).
  int calibrate();
  int iters_per_sample() const { return iters_; }
  // One timed sample. Its span (the slowest flow's, every operation of it) is the point's timed
  // work, its host time the point's `samples` part (point_cost.h).
  Sample sample();
  // n timed samples, as n calls of sample() take them (the same spans, each behind its own
  // gate). With overlap_enqueue, sample i+1's operations are queued behind its closed gate
  // while sample i runs, and that gate opens only once sample i has ended on every flow of
  // every process: the host's enqueue time leaves the point's wall time, not its spans. Only
  // for flows whose enqueue is a plain launch (no host-side progress of queued work, as a
  // library's proxy thread may make). Collective, with the same n and overlap everywhere; the
  // order of its steps: sample_schedule.h.
  std::vector<Sample> samples(int n, bool overlap_enqueue);
  // The GPUs this process issues on.
  std::vector<int> gpus() const;
  // Operations each flow has run so far (warm-up included): op k used input group k % groups.
  int ops_run() const { return next_op_; }

 private:
  // `gated` false: no gate armed or opened (every process alike), the operations start as queued.
  Sample run(int k, bool profiled = false, bool gated = true);
  // run()'s halves: the batch of k operations per flow behind an armed gate (unless `gated` is
  // false), its events of `slot` (0, or 1 for the batch queued while slot 0's runs); "" or what
  // failed.
  std::string enqueue_batch(int k, int slot, bool gated = true);
  // After the batch's gate opened: waits for it, reads its spans, gathers the slowest over
  // every process. `pending`: a batch armed behind a closed gate (opened, then drained,
  // before an error is thrown).
  Sample finish_batch(int k, int slot, std::string err, bool pending);
  void make_events(std::vector<cudaEvent_t>& start, std::vector<cudaEvent_t>& stop);
  PeerGroup& group_;
  std::vector<Flow> flows_;
  int total_flows_;
  Gate& gate_;
  StatusBoard& status_;
  TimingOptions opt_;
  std::vector<cudaEvent_t> start_, stop_;
  std::vector<cudaEvent_t> next_start_, next_stop_;  // slot 1: made by the first overlapped samples()
  int iters_ = 1;
  int next_op_ = 0;
  bool profile_next_sample_ = false;  // PKBENCH_PROFILER_RANGE: this timer's first sample
};

// Nsight Compute in virtual mode: PKBENCH_PROFILER_RANGE=1 runs every FlowTimer's first
// timed sample between cudaProfilerStart and cudaProfilerStop (from before the start gate is
// armed to just after it opens), one profiler range per point, announced on stderr with its
// operation count. Kernel replay serialises kernels, and the ranks of a virtual group wait on
// one another's signals; `ncu --replay-mode range` (or app-range)
// measures the range's work as it ran, concurrently. Off (unset, empty or 0) by default.
// Returns whether it is on; a value other than 0 or 1 is bad input (ArgError), checked when
// a study begins, before anything runs.
bool profiler_range_requested();

// Per-point bookkeeping used by every study: host sleep between points (the point's `gap`).
void idle_gap(double ms);

}  // namespace pk
