#pragma once
// In-kernel latency measurement: per-iteration clock64 deltas into a global array, plus
// %globaltimer and clock64 at both ends so the host can convert cycles to nanoseconds at
// the clock the SM actually ran.
#include <cstdint>

#include "kernels/ptx.cuh"

namespace pk::sync {

struct TimingRecord {
  unsigned long long gt_start, gt_end;    // %globaltimer, ns
  unsigned long long clk_start, clk_end;  // clock64, SM cycles
  int sm;                                  // %smid of the measuring thread
  int pad;
  unsigned long long sink;                 // keeps dependent loads alive
};

__device__ __forceinline__ void record_start(TimingRecord* r) {
  r->sm = static_cast<int>(ptx::smid());
  r->gt_start = ptx::globaltimer_ns();
  r->clk_start = ptx::clock64_cycles();
}
__device__ __forceinline__ void record_end(TimingRecord* r) {
  r->clk_end = ptx::clock64_cycles();
  r->gt_end = ptx::globaltimer_ns();
}

// The smallest step of %globaltimer seen over `reads` back-to-back reads, and how many
// distinct values appeared (a coarse timer shows few).
static __global__ void globaltimer_resolution_kernel(int reads, unsigned long long* min_step, unsigned long long* steps,
                                              TimingRecord* rec) {
  record_start(rec);
  unsigned long long prev = ptx::globaltimer_ns(), best = ~0ull, n = 0;
  for (int i = 0; i < reads; ++i) {
    unsigned long long t = ptx::globaltimer_ns();
    if (t != prev) {
      if (t - prev < best) best = t - prev;
      ++n;
      prev = t;
    }
  }
  record_end(rec);
  *min_step = best;
  *steps = n;
}

static __global__ void empty_kernel() {}

}  // namespace pk::sync
