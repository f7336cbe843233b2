#pragma once
// Every wait in pkbench is bounded: a partner that never comes ends the wait with a
// recorded timeout instead of a hung GPU.
#include <cstdint>

#include "kernels/ptx.cuh"
#include "kernels/status.cuh"

namespace pk {

// Polls `done()` until true; on timeout records kStatusTimeout with `tag` and returns false.
// The clock is read only every 32 polls so it stays off the critical path of a fast wait.
template <class Poll>
__device__ __forceinline__ bool spin_until(Poll done, const Deadline& d, unsigned long long tag) {
  if (done()) return true;
  const uint64_t start = ptx::globaltimer_ns();
  for (uint32_t i = 1;; ++i) {
    if (done()) return true;
    if ((i & 31) == 0) {
      if (ptx::globaltimer_ns() - start > d.timeout_ns) {
        report_status(d.status, kStatusTimeout, tag);
        return false;
      }
      // Another thread already gave up: stop too instead of waiting out our own deadline.
      if (d.status && *reinterpret_cast<volatile int*>(&d.status->code) != kStatusOk) return false;
    }
  }
}

__device__ __forceinline__ bool mbarrier_wait(uint32_t bar, uint32_t parity, const Deadline& d) {
  return spin_until([&] { return ptx::mbarrier_try_wait_parity(bar, parity); }, d, kWaitMbarrier);
}

// Waits until *flag >= target with an acquire load at system scope (works for host-mapped,
// local and peer memory).
__device__ __forceinline__ bool wait_flag_geq_sys(const int* flag, int target, const Deadline& d,
                                                  unsigned long long tag = kWaitFlag) {
  return spin_until([&] { return ptx::ld_acquire_sys(flag) >= target; }, d, tag);
}

}  // namespace pk
