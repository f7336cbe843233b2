// Host-side costs that enter the paper's cost model: kernel launch (back to back, and with
// a synchronisation), a small copy-engine copy, CUDA events; and the resolution of every
// clock the study uses.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "kernels/sync_timing.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/sync/sync_common.h"

namespace pk::sync {
namespace {

using steady = std::chrono::steady_clock;

double steady_resolution_ns() {
  auto prev = steady::now();
  double best = 1e9;
  for (int i = 0; i < 200000; ++i) {
    auto t = steady::now();
    if (t != prev) {
      best = std::min(best, std::chrono::duration<double, std::nano>(t - prev).count());
      prev = t;
    }
  }
  return best;
}

// The smallest nonzero gap between two back-to-back event records on `gpu`: what CUDA
// events can resolve there.
double event_min_gap_ns(SyncContext& c, int gpu) {
  c.group().set_device(gpu);
  cudaStream_t s = c.stream(gpu);
  EventPair ev;
  double best = 1e12;
  for (int i = 0; i < 2000; ++i) {
    PK_CUDA_CHECK(cudaEventRecord(ev.start, s));
    PK_CUDA_CHECK(cudaEventRecord(ev.stop, s));
    const float ms = ev.elapsed_ms();
    if (ms > 0) best = std::min(best, double(ms) * 1e6);
  }
  return best > 1e11 ? NAN : best;  // NAN: never nonzero
}

LatencyResult host_timed(SyncContext& c, int gpu, const std::function<void(cudaStream_t)>& op) {
  c.group().set_device(gpu);
  cudaStream_t s = c.stream(gpu);
  LatencyResult r;
  r.clock_source = "host steady_clock around the call and its stream synchronisation";
  r.clock_resolution_ns = steady_resolution_ns();
  for (int i = 0; i < c.total_iters(); ++i) {
    auto t0 = steady::now();
    op(s);
    PK_CUDA_CHECK(cudaStreamSynchronize(s));
    double ns = std::chrono::duration<double, std::nano>(steady::now() - t0).count();
    if (i >= c.opt().warmup_iters) r.ns.push_back(ns);
  }
  return r;
}

LatencyResult launch_back_to_back(SyncContext& c) {
  const int g = c.opt().gpu_a, per_sample = 10, samples = c.opt().iters;
  c.group().set_device(g);
  cudaStream_t s = c.stream(g);
  EventPair ev;
  LatencyResult r;
  r.clock_source = "cuda events around 10 back-to-back launches (per-launch mean per sample)";
  r.ops_per_sample = per_sample;
  for (int i = 0; i < samples + 2; ++i) {
    PK_CUDA_CHECK(cudaEventRecord(ev.start, s));
    for (int k = 0; k < per_sample; ++k) empty_kernel<<<1, 32, 0, s>>>();
    PK_CUDA_CHECK_LAUNCH();
    PK_CUDA_CHECK(cudaEventRecord(ev.stop, s));
    const float ms = ev.elapsed_ms();
    if (i >= 2) r.ns.push_back(ms * 1e6 / per_sample);
  }
  r.clock_resolution_ns = event_min_gap_ns(c, g);
  return r;
}

LatencyResult event_pair(SyncContext& c) {
  const int g = c.opt().gpu_a;
  c.group().set_device(g);
  cudaStream_t s = c.stream(g);
  EventPair ev;
  LatencyResult r;
  r.clock_source = "host steady_clock around cudaEventRecord x2 + cudaEventSynchronize";
  r.clock_resolution_ns = steady_resolution_ns();
  for (int i = 0; i < c.total_iters(); ++i) {
    auto t0 = steady::now();
    PK_CUDA_CHECK(cudaEventRecord(ev.start, s));
    PK_CUDA_CHECK(cudaEventRecord(ev.stop, s));
    PK_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    double ns = std::chrono::duration<double, std::nano>(steady::now() - t0).count();
    if (i >= c.opt().warmup_iters) r.ns.push_back(ns);
  }
  return r;
}

LatencyResult clock_resolution(SyncContext& c, bool globaltimer) {
  LatencyResult r;
  if (globaltimer) {
    r.clock_source = "%globaltimer: smallest step over 200000 reads";
    r.ns = {c.globaltimer_resolution_ns(c.opt().gpu_a)};
  } else {
    r.clock_source = "std::chrono::steady_clock: smallest step over 200000 reads";
    r.ns = {steady_resolution_ns()};
  }
  r.clock_resolution_ns = r.ns[0];
  return r;
}

LatencyResult event_resolution(SyncContext& c) {
  LatencyResult r;
  r.clock_source = "cuda events: smallest nonzero gap between back-to-back records";
  r.ns = {event_min_gap_ns(c, c.opt().gpu_a)};
  r.clock_resolution_ns = r.ns[0];
  return r;
}

}  // namespace

void add_host_variants(std::vector<Variant>& v, const SyncMachine&) {
  v.push_back({"clock", "globaltimer_step", "gpu", "", "", 1, false, 1,
               [](SyncContext& c) { return clock_resolution(c, true); }});
  v.push_back({"clock", "steady_clock_step", "host", "", "", 1, false, 1,
               [](SyncContext& c) { return clock_resolution(c, false); }});
  v.push_back({"clock", "cuda_event_min_gap", "gpu", "", "", 1, false, 1, event_resolution});
  v.push_back({"host", "kernel_launch", "host", "back_to_back", "", 1, false, 1, launch_back_to_back});
  v.push_back({"host", "kernel_launch", "host", "launch_and_sync", "", 1, false, 1, [](SyncContext& c) {
                 return host_timed(c, c.opt().gpu_a, [](cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); });
               }});
  v.push_back({"host", "ce_copy_16B", "host", "memcpy_and_sync", "local_hbm", 1, false, 1, [](SyncContext& c) {
                 const int g = c.opt().gpu_a;
                 char* buf = c.small().local(g);
                 return host_timed(c, g, [buf](cudaStream_t s) {
                   PK_CUDA_CHECK(cudaMemcpyAsync(buf + 2048, buf, 16, cudaMemcpyDeviceToDevice, s));
                 });
               }});
  v.push_back({"host", "ce_copy_16B", "host", "memcpy_and_sync", "peer_hbm", 2, false, 2, [](SyncContext& c) {
                 const int a = c.opt().gpu_a, b = c.opt().gpu_b;
                 LatencyResult r;
                 c.on(a, [&] {  // a copies into b's buffer through the address it maps
                   char* src = c.small().local(a);
                   char* dst = c.small().at(a, b);
                   r = host_timed(c, a, [=](cudaStream_t s) {
                     PK_CUDA_CHECK(cudaMemcpyAsync(dst, src, 16, cudaMemcpyDeviceToDevice, s));
                   });
                 });
                 return c.share(a, r);
               }});
  v.push_back({"host", "event_record_pair", "host", "record_record_sync", "", 1, false, 1, event_pair});
}

}  // namespace pk::sync
