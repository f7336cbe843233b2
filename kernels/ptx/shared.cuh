#pragma once
// Accesses to shared memory through 32-bit shared addresses (smem_addr, map_to_rank).
// Hand-written: cuda::ptx has no ld/st on the shared space.
#include <cstdint>

namespace pk::ptx {

__device__ __forceinline__ void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// Without a "memory" clobber, exactly as the fused inter-SM reduction
// (kernels/fused/gemm_reduce_inter.cuh) issues its 16-B shared loads, so that kernel can call
// this one and emit the same code; the store below has the clobber, as there.
__device__ __forceinline__ uint4 ld_shared_v4(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void st_shared_v4(uint32_t addr, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

}  // namespace pk::ptx
