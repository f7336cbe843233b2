#pragma once
// Special registers and warp election. Hand-written: cuda::ptx's get_sreg_smid and
// get_sreg_cluster_ctarank are non-volatile asm (the compiler may merge or move them), and
// its get_sreg_clock64 / get_sreg_globaltimer have no "memory" clobber, so a timestamp could
// move across the accesses it times; these are asm volatile, the clocks with the clobber.
#include <cstdint>

namespace pk::ptx {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One lane of the (fully active) warp gets true. Prefer over laneid==0: ptxas may otherwise
// wrap single-thread async instructions in a loop over the warp. (cuda::ptx has no elect.sync.)
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t pred = 0;
  asm volatile(
      "{\n\t.reg .b32 rx;\n\t.reg .pred px;\n\t"
      "elect.sync rx|px, %1;\n\t"
      "@px mov.s32 %0, 1;\n\t}"
      : "+r"(pred)
      : "r"(0xffffffffu)
      : "memory");
  return pred != 0;
}

__device__ __forceinline__ uint64_t globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ uint64_t clock64_cycles() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ uint32_t smid() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)::"memory");
  return r;
}

}  // namespace pk::ptx
