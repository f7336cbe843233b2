#include "timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "cuda_check.h"
#include "stats.h"

namespace pk {

FlowTimer::FlowTimer(std::vector<Flow> flows, Gate& gate, StatusBoard& status, const TimingOptions& opt)
    : flows_(std::move(flows)), gate_(gate), status_(status), opt_(opt) {
  if (flows_.empty()) throw std::invalid_argument("FlowTimer: no flows");
  for (const Flow& f : flows_) {
    PK_CUDA_CHECK(cudaSetDevice(f.device));
    cudaEvent_t a, b;
    PK_CUDA_CHECK(cudaEventCreate(&a));
    PK_CUDA_CHECK(cudaEventCreate(&b));
    start_.push_back(a);
    stop_.push_back(b);
  }
}

FlowTimer::~FlowTimer() {
  for (size_t i = 0; i < start_.size(); ++i) {
    cudaSetDevice(flows_[i].device);
    cudaEventDestroy(start_[i]);
    cudaEventDestroy(stop_[i]);
  }
}

std::vector<int> FlowTimer::devices() const {
  std::set<int> d;
  for (const Flow& f : flows_) d.insert(f.device);
  return {d.begin(), d.end()};
}

Sample FlowTimer::run(int k) {
  for (size_t i = 0; i < flows_.size(); ++i) {
    const Flow& f = flows_[i];
    PK_CUDA_CHECK(cudaSetDevice(f.device));
    gate_.arm(f.stream, status_.deadline(f.device, opt_.timeout_ms));
    PK_CUDA_CHECK(cudaEventRecord(start_[i], f.stream));
  }
  for (int op = 0; op < k; ++op) {
    for (const Flow& f : flows_) {
      PK_CUDA_CHECK(cudaSetDevice(f.device));
      f.enqueue(next_op_ + op);
    }
  }
  next_op_ += k;
  for (size_t i = 0; i < flows_.size(); ++i) {
    PK_CUDA_CHECK(cudaSetDevice(flows_[i].device));
    PK_CUDA_CHECK(cudaEventRecord(stop_[i], flows_[i].stream));
  }
  gate_.open();
  Sample s;
  for (size_t i = 0; i < flows_.size(); ++i) {
    PK_CUDA_CHECK(cudaEventSynchronize(stop_[i]));
  }
  status_.check(devices());
  for (size_t i = 0; i < flows_.size(); ++i) {
    float ms = 0;
    PK_CUDA_CHECK(cudaEventElapsedTime(&ms, start_[i], stop_[i]));
    s.flow_ms_per_op.push_back(ms / k);
    s.step_ms_per_op = std::max(s.step_ms_per_op, double(ms) / k);
  }
  return s;
}

int FlowTimer::calibrate() {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  std::vector<double> est;
  do {
    est.push_back(run(1).step_ms_per_op);
  } while (est.size() < 2 ||
           std::chrono::duration<double, std::milli>(clock::now() - t0).count() < opt_.warmup_ms);
  const double per_op = summarize(est).median;
  int max_k = opt_.max_iters_per_sample;
  for (const Flow& f : flows_) max_k = std::min(max_k, std::max(1, opt_.max_enqueued / std::max(1, f.enqueues_per_op)));
  int k = per_op > 0 ? static_cast<int>(std::ceil(opt_.target_sample_ms / per_op)) : max_k;
  iters_ = std::clamp(k, 1, std::max(1, max_k));
  return iters_;
}

Sample FlowTimer::sample() { return run(iters_); }

void idle_gap(double ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(ms * 1000)));
}

}  // namespace pk
