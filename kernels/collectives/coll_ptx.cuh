#pragma once
// One-instruction PTX wrappers the collectives need beyond kernels/ptx.cuh. Each has a
// "memory" clobber so the compiler neither caches values across it nor moves memory
// accesses over it.
#include <cstdint>

#include "../ptx.cuh"

namespace pk::ptx {  // extends kernels/ptx.cuh

// Low-latency (LL) lines: 16 B = two 8-B elements {data32, flag32}. A vector access is, in
// the memory model, one access per element, and an aligned 8-B access is single-copy
// atomic: a reader sees a whole {data, flag} pair or none of it, so the flag proves the
// data beside it without any fence. (NCCL's LL protocol rests on the same property.)
__device__ __forceinline__ void st_volatile_v2_u64(void* p, uint64_t a, uint64_t b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ void ld_volatile_v2_u64(const void* p, uint64_t& a, uint64_t& b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

// TMA (async proxy) writes are complete for this thread after cp.async.bulk.wait_group 0;
// before a generic-proxy release tells another GPU to read them, order them with
// fence_proxy_async_global() (kernels/ptx.cuh).

// 16-B global accesses (local or peer memory through a peer pointer). Plain C++ accesses,
// not asm volatile: the compiler may then batch several loads of an unrolled loop before the
// first use (a thread with one load in flight is latency-bound across NVLink). They never
// move across the signals, which are asm volatile with "memory" clobbers and bar.sync.
__device__ __forceinline__ uint4 ld_v4(const void* p) { return *static_cast<const uint4*>(p); }
__device__ __forceinline__ void st_v4(void* p, const uint4& v) { *static_cast<uint4*>(p) = v; }

// Named barrier `id` of `threads` threads that also ANDs a predicate over them: the
// barrier's ordering (as bar.sync) plus "did every thread succeed" in one instruction.
__device__ __forceinline__ bool bar_red_and(uint32_t id, uint32_t threads, bool pred) {
  uint32_t r;
  asm volatile(
      "{\n\t.reg .pred p, q;\n\t"
      "setp.ne.u32 p, %1, 0;\n\t"
      "bar.red.and.pred q, %2, %3, p;\n\t"
      "selp.u32 %0, 1, 0, q;\n\t}"
      : "=r"(r)
      : "r"(static_cast<uint32_t>(pred)), "r"(id), "r"(threads)
      : "memory");
  return r != 0;
}

}  // namespace pk::ptx
