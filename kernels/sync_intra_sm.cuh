#pragma once
// Synchronisation inside one SM: an mbarrier ping-pong between two warps, and block-wide
// barriers (__syncthreads / named bar.sync) for 1..32 warps.
#include "kernels/spin_wait.cuh"
#include "kernels/sync_timing.cuh"

namespace pk::sync {

// Warp 0 arrives on `ping` and waits on `pong`; warp 1 waits on `ping` and arrives on
// `pong`. One round trip per iteration, timed by warp 0.
static __global__ void mbarrier_pingpong_kernel(int iters, uint32_t* cycles, TimingRecord* rec, Deadline d) {
  __shared__ alignas(8) uint64_t bars[2];
  const uint32_t ping = ptx::smem_addr(&bars[0]), pong = ptx::smem_addr(&bars[1]);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(ping, 1);
    ptx::mbarrier_init(pong, 1);
  }
  __syncthreads();
  if (lane != 0) return;
  if (warp == 0) {
    record_start(rec);
    for (int i = 0; i < iters; ++i) {
      const uint64_t t0 = ptx::clock64_cycles();
      ptx::mbarrier_arrive(ping);
      if (!mbarrier_wait(pong, i & 1, d)) return;
      cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
    }
    record_end(rec);
  } else if (warp == 1) {
    for (int i = 0; i < iters; ++i) {
      if (!mbarrier_wait(ping, i & 1, d)) return;
      ptx::mbarrier_arrive(pong);
    }
  }
}

// Time of one block-wide barrier as thread 0 sees it, all warps arriving at once.
template <bool Named>
static __global__ void block_barrier_kernel(int iters, uint32_t* cycles, TimingRecord* rec) {
  if (threadIdx.x == 0) record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = ptx::clock64_cycles();
    if constexpr (Named) ptx::bar_sync(1, blockDim.x);
    else __syncthreads();
    if (threadIdx.x == 0) cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
  }
  if (threadIdx.x == 0) record_end(rec);
}

}  // namespace pk::sync
