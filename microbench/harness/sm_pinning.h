#pragma once
// "N SMs" must mean N SMs: blocks ask for enough shared memory that no more than
// blocks_per_sm of them fit on one SM, and the occupancy API confirms it, so a grid of
// N * blocks_per_sm blocks is spread over exactly N SMs.
#include <cuda_runtime.h>

#include <cstdint>

#include "microbench/harness/topology.h"

namespace pk {

// Dynamic shared memory to request: at least `needed`, and enough that blocks_per_sm + 1
// blocks (each also costing `reserved_per_block`) do not fit in `smem_per_sm`. Rounded up
// to 128 B. Throws ArgError when `needed` itself prevents blocks_per_sm from fitting.
uint64_t pinned_smem_bytes(uint64_t needed, int blocks_per_sm, uint64_t smem_per_sm, uint64_t reserved_per_block,
                           uint64_t smem_per_block_optin);

struct PinnedLaunch {
  dim3 grid, block;
  size_t smem = 0;
};
// Sets the kernel's dynamic shared memory limit on the current device and checks residency.
PinnedLaunch pin_to_sms(const void* kernel, int sms, int blocks_per_sm, int threads, uint64_t smem_needed,
                        const GpuInfo& g);

}  // namespace pk
