#include "microbench/harness/timing.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/sample_schedule.h"

namespace pk {

FlowTimer::FlowTimer(PeerGroup& group, std::vector<Flow> flows, int total_flows, Gate& gate, StatusBoard& status,
                     const TimingOptions& opt)
    : group_(group),
      flows_(std::move(flows)),
      total_flows_(total_flows),
      gate_(gate),
      status_(status),
      opt_(opt),
      profile_next_sample_(profiler_range_requested()) {
  if (total_flows_ < 1) throw std::invalid_argument("FlowTimer: no flows");
  for (const Flow& f : flows_)
    if (f.index < 0 || f.index >= total_flows_) throw std::invalid_argument("FlowTimer: flow index out of range");
  make_events(start_, stop_);
}

// One start and one stop event per flow, each on its flow's GPU.
void FlowTimer::make_events(std::vector<cudaEvent_t>& start, std::vector<cudaEvent_t>& stop) {
  for (const Flow& f : flows_) {
    group_.set_device(f.gpu);
    cudaEvent_t a, b;
    PK_CUDA_CHECK(cudaEventCreate(&a));
    PK_CUDA_CHECK(cudaEventCreate(&b));
    start.push_back(a);
    stop.push_back(b);
  }
}

FlowTimer::~FlowTimer() {
  for (auto* events : {&start_, &stop_, &next_start_, &next_stop_})
    for (size_t i = 0; i < events->size(); ++i) {
      group_.set_device(flows_[i].gpu);
      cudaEventDestroy((*events)[i]);
    }
}

std::vector<int> FlowTimer::gpus() const {
  std::set<int> d;
  for (const Flow& f : flows_) d.insert(f.gpu);
  return {d.begin(), d.end()};
}

bool profiler_range_requested() {
  const char* v = std::getenv("PKBENCH_PROFILER_RANGE");
  const std::string s = v ? v : "";
  if (s.empty() || s == "0") return false;
  if (s == "1") return true;
  throw ArgError("PKBENCH_PROFILER_RANGE='" + s + "': 0 or 1");
}

std::string FlowTimer::enqueue_batch(int k, int slot, bool gated) {
  const std::vector<cudaEvent_t>& start = slot ? next_start_ : start_;
  const std::vector<cudaEvent_t>& stop = slot ? next_stop_ : stop_;
  std::string err;
  try {
    for (size_t i = 0; i < flows_.size(); ++i) {
      const Flow& f = flows_[i];
      group_.set_device(f.gpu);
      if (gated) gate_.arm(f.gpu, f.stream, status_.deadline(f.gpu, opt_.timeout_ms));
      PK_CUDA_CHECK(cudaEventRecord(start[i], f.stream));
    }
    for (int op = 0; op < k; ++op)
      for (const Flow& f : flows_) {
        group_.set_device(f.gpu);
        f.enqueue(next_op_ + op);
      }
    for (size_t i = 0; i < flows_.size(); ++i) {
      group_.set_device(flows_[i].gpu);
      PK_CUDA_CHECK(cudaEventRecord(stop[i], flows_[i].stream));
    }
  } catch (const std::exception& e) {
    err = e.what();  // the gate still opens: the other processes are waiting on it
  }
  next_op_ += k;
  return err;
}

namespace {
// Waits for everything queued on `gpus` (what a failed batch left behind).
void drain(PeerGroup& group, const std::vector<int>& gpus) {
  for (int g : gpus) {
    group.set_device(g);
    cudaDeviceSynchronize();
  }
}
}  // namespace

Sample FlowTimer::finish_batch(int k, int slot, std::string err, bool pending) {
  const std::vector<cudaEvent_t>& start = slot ? next_start_ : start_;
  const std::vector<cudaEvent_t>& stop = slot ? next_stop_ : stop_;
  std::vector<double> flow_ms(total_flows_, 0.0);
  if (err.empty()) {
    try {
      for (size_t i = 0; i < flows_.size(); ++i) PK_CUDA_CHECK(cudaEventSynchronize(stop[i]));
      status_.check(gpus());
      for (size_t i = 0; i < flows_.size(); ++i) {
        float ms = 0;
        PK_CUDA_CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
        flow_ms[flows_[i].index] = double(ms) / k;
      }
    } catch (const std::exception& e) {
      err = e.what();
    }
  } else if (!pending) {
    drain(group_, gpus());  // let what was queued drain before reporting
  }
  err = group_.comm().first_error(err);
  if (!err.empty()) {
    if (pending) {
      // The batch behind the closed gate: every status word marked failed first, so its gate
      // and its operations' waits give up at once instead of each waiting out its deadline;
      // then released (every process opens it alike), drained, and the words cleared for
      // the next point.
      const DeviceStatus abandoned{kStatusTimeout, 0, 0, 0, 0};
      for (int g : gpus()) {
        group_.set_device(g);
        cudaMemcpy(status_.on(g), &abandoned, sizeof abandoned, cudaMemcpyHostToDevice);
      }
      gate_.open();
      drain(group_, gpus());
      try {
        status_.check(gpus());
      } catch (const std::exception&) {
        // the marks set above (and any failure of the abandoned batch): cleared by the read
      }
    }
    throw DeviceFailure(err);
  }
  group_.comm().allreduce_max(flow_ms.data(), total_flows_);
  Sample s;
  s.flow_ms_per_op = flow_ms;
  s.step_ms_per_op = *std::max_element(flow_ms.begin(), flow_ms.end());
  return s;
}

Sample FlowTimer::run(int k, bool profiled, bool gated) {
  if (profiled) {
    static int ranges = 0;
    std::fprintf(stderr, "pkbench: profiler range %d: %d ops on each of %zu flows\n", ++ranges, k, flows_.size());
    PK_CUDA_CHECK(cudaProfilerStart());
  }
  const std::string err = enqueue_batch(k, 0, gated);
  if (gated) gate_.open();
  // Before any wait on the host: the profiler ends the range by waiting for its work.
  if (profiled) PK_CUDA_CHECK(cudaProfilerStop());
  return finish_batch(k, 0, err, false);
}

int FlowTimer::calibrate() {
  using clock = std::chrono::steady_clock;
  point_cost::Phase cost("warm-up");
  int max_k = opt_.max_iters_per_sample;
  for (const Flow& f : flows_) max_k = std::min(max_k, std::max(1, opt_.max_enqueued / std::max(1, f.enqueues_per_op)));
  max_k = static_cast<int>(group_.comm().min(max_k));
  const bool fixed = opt_.fixed_iters_per_sample > 0;
  const auto t0 = clock::now();
  std::vector<double> est;
  for (bool first = true;; first = false) {
    est.push_back(run(1, false, !(first && opt_.ungated_first_run)).step_ms_per_op);
    // Every process decides alike: the runs' times are every process's slowest, and the
    // longest elapsed time decides.
    const double elapsed = group_.comm().max(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    if (warmup_done(est, elapsed, opt_.warmup_ms, opt_.target_sample_ms, max_k, fixed, opt_.warmup_runs)) break;
  }
  if (fixed) {
    if (opt_.fixed_iters_per_sample > max_k)  // max_k is every process's minimum: all refuse alike
      throw std::runtime_error("a sample of " + std::to_string(opt_.fixed_iters_per_sample) +
                               " operations would queue more than " + std::to_string(opt_.max_enqueued) +
                               " calls behind the start gate");
    iters_ = opt_.fixed_iters_per_sample;
    return iters_;
  }
  iters_ = iters_for(count_basis(est, opt_.ungated_first_run), opt_.target_sample_ms, max_k);
  return iters_;
}

Sample FlowTimer::sample() {
  point_cost::Phase cost("samples");
  const bool profiled = profile_next_sample_;
  profile_next_sample_ = false;
  Sample s = run(iters_, profiled);
  point_cost::timed(s.step_ms_per_op * iters_);  // the slowest flow's span: what the sample measured
  return s;
}

std::vector<Sample> FlowTimer::samples(int n, bool overlap_enqueue) {
  std::vector<Sample> out;
  // A profiled sample is a range of its own, with nothing else queued in it.
  if (!overlap_enqueue || profile_next_sample_ || n < 2) {
    for (int i = 0; i < n; ++i) out.push_back(sample());
    return out;
  }
  point_cost::Phase cost("samples");
  if (next_start_.empty()) make_events(next_start_, next_stop_);
  OverlapSteps steps;
  steps.enqueue = [&](int slot) { return enqueue_batch(iters_, slot); };
  steps.open = [&] { gate_.open(); };
  steps.finish = [&](int slot, const std::string& err, bool pending) {
    out.push_back(finish_batch(iters_, slot, err, pending));
    point_cost::timed(out.back().step_ms_per_op * iters_);
  };
  overlapped_samples(n, steps);
  return out;
}

void idle_gap(double ms) {
  if (ms <= 0) return;
  point_cost::Phase cost("gap");
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(ms * 1000)));
}

}  // namespace pk
