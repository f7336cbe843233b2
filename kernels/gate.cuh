#pragma once
// Non-template kernels in these headers are `static`: each translation unit that includes
// a header gets its own copy instead of a duplicate symbol.
// The start gate: one thread spins on a host-mapped flag so that a stream's queued work
// (possibly hundreds of copies) starts only when the host has finished enqueuing it, and
// all GPUs in a step start together.
#include "spin_wait.cuh"

namespace pk {

static __global__ void gate_kernel(const int* host_flag, int open_value, Deadline d) {
  wait_flag_geq_sys(host_flag, open_value, d, kWaitGate);
}

}  // namespace pk
