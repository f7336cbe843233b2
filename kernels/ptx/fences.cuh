#pragma once
// Memory and proxy fences: CCCL's cuda::ptx has each of them with the scope and semantics
// needed (the same instruction, asm volatile with a "memory" clobber), so these are its
// calls under the names the kernels use.
#include <cuda/ptx>

namespace pk::ptx {

// Makes initialised mbarriers visible to the async proxy (TMA completes transactions on them).
__device__ __forceinline__ void fence_mbarrier_init() {
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}
// Generic-proxy writes to shared memory that the async proxy (TMA) reads next.
__device__ __forceinline__ void fence_proxy_async_smem() { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }
// Async-proxy writes to global memory (TMA stores or reduce-adds whose bulk group has
// completed) ordered before the generic-proxy operations that follow (a flag store).
__device__ __forceinline__ void fence_proxy_async_global() { cuda::ptx::fence_proxy_async(cuda::ptx::space_global); }

__device__ __forceinline__ void fence_sc_sys() { cuda::ptx::fence(cuda::ptx::sem_sc, cuda::ptx::scope_sys); }
__device__ __forceinline__ void fence_acq_rel_sys() { cuda::ptx::fence(cuda::ptx::sem_acq_rel, cuda::ptx::scope_sys); }
__device__ __forceinline__ void fence_acq_rel_gpu() { cuda::ptx::fence(cuda::ptx::sem_acq_rel, cuda::ptx::scope_gpu); }

}  // namespace pk::ptx
