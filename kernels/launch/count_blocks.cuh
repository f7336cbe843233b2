#pragma once
// The launch study's kernel: as little work as a kernel can do and still be checked. Thread 0 of
// every block adds one to the GPU's counter, so a counter that grew by kernels x blocks proves
// that every block of every kernel ran. The programmatic-dependent-launch calls are no-ops under
// an ordinary launch (ptx/griddep.cuh), so one kernel serves every variant: launched with
// cudaLaunchAttributeProgrammaticStreamSerialization it waits for the kernel ahead of it, then
// lets the one behind it start while it finishes.
#include <cstdint>

#include "kernels/ptx/griddep.cuh"

namespace pk::launch {

struct CountBlocksConfig {
  static constexpr int kThreads = 128;  // one warp would do; four is what a real kernel's block has at least
};

__global__ void __launch_bounds__(CountBlocksConfig::kThreads) count_blocks(unsigned long long* counter) {
  ptx::griddep_wait();
  if (threadIdx.x == 0) atomicAdd(counter, 1ull);
  ptx::griddep_launch_dependents();
}

}  // namespace pk::launch
