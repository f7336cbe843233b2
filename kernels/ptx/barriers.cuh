#pragma once
// Named barriers of a CTA. Hand-written: cuda::ptx has neither bar.sync nor bar.red.
#include <cstdint>

namespace pk::ptx {

__device__ __forceinline__ void bar_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
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
