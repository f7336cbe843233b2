#pragma once
// Data loads of the primitives study that kernels/ptx.cuh does not wrap: weak (plain)
// global loads written as single PTX instructions, so that the compiler can neither hoist
// nor merge them along a dependent chain. "Weak" is the PTX memory model's word for an
// ordinary access: no ordering and no coherence promise beyond the next fence or
// synchronising operation, and an L1 line read before may serve it. Stores of data stay
// plain C++ assignments (also weak), so the compiler emits the same st.global it would for
// any kernel.
#include <cstdint>

#include "../ptx.cuh"

namespace pk::prim::ptx {

__device__ __forceinline__ uint64_t ld_weak_u64(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ uint4 ld_weak_v4(const uint4* p) { return ::pk::ptx::ld_global_v4(p); }

}  // namespace pk::prim::ptx

namespace pk::prim::ptx {

// Element data through explicit global-space instructions (ld.global / st.global, weak).
// A pointer picked out of a PeerTable at run time loses its address space for the compiler,
// which then emits generic LD/ST; these keep the PK rows on LDG/STG like the library rows.
__device__ __forceinline__ uint32_t ld_global(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint4 ld_global(const uint4* p) { return ld_weak_v4(p); }
__device__ __forceinline__ void st_global(uint32_t* p, uint32_t v) {
  asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_global(uint4* p, uint4 v) { ::pk::ptx::st_global_v4(p, v); }

// Two 64-bit elements, volatile (relaxed at system scope). Each u64 element is single-copy
// atomic (aligned): the LL protocol keeps a 4-B flag beside 4 B of data in every element.
__device__ __forceinline__ void st_volatile_v2_u64(unsigned long long* p, unsigned long long a, unsigned long long b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ void ld_volatile_v2_u64(const unsigned long long* p, unsigned long long& a,
                                                   unsigned long long& b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

}  // namespace pk::prim::ptx
