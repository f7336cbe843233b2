#pragma once
// A kernel's way to say "this went wrong" without hanging or trapping: the first failure is
// recorded (code, where, a detail word) and every spin-wait gives up after its timeout.
// Plain struct: host code reads it back with cudaMemcpy.
#include <cstdint>

namespace pk {

enum StatusCode : int {
  kStatusOk = 0,
  kStatusTimeout = 1,      // a spin-wait passed its deadline (detail: what it waited for)
  kStatusBadConfig = 2,    // the kernel was launched with parameters it cannot honour
};

struct DeviceStatus {
  int code;
  int block;
  int thread;
  int pad;
  unsigned long long detail;
};

// How long a kernel's spin-waits may last, and where a timeout is reported.
struct Deadline {
  uint64_t timeout_ns;
  DeviceStatus* status;
};

// Tags put in DeviceStatus::detail so a timeout names its wait.
enum WaitTag : unsigned long long {
  kWaitGate = 1,
  kWaitMbarrier = 2,
  kWaitFlag = 3,
  kWaitBarrier = 4,
};

#ifdef __CUDACC__
__device__ __forceinline__ void report_status(DeviceStatus* st, int code, unsigned long long detail) {
  if (st && atomicCAS(&st->code, 0, code) == 0) {
    st->block = static_cast<int>(blockIdx.x);
    st->thread = static_cast<int>(threadIdx.x);
    st->detail = detail;
    __threadfence_system();
  }
}
#endif

}  // namespace pk
