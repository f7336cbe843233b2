#pragma once
// mbarriers in shared memory. Hand-written: cuda::ptx's mbarrier calls take generic
// pointers (uint64_t*) and convert them to shared addresses themselves; the kernels hold
// 32-bit shared addresses (smem_addr) computed once per stage, and the arrive forms here
// discard the state (`_`), which cuda::ptx returns in a register.
#include <cstdint>

namespace pk::ptx {

__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// Arrive on an mbarrier anywhere in the cluster (own CTA included), with the default
// .release.cta semantics. Used to free a stage that a peer's multicast will overwrite: what
// must precede the arrive is only that this warpgroup's wgmma reads of the stage are done,
// which wgmma.wait_group already guarantees. The .release.cluster form is NOT used on
// purpose: ptxas emits MEMBAR.ALL.CTA + MEMBAR.ALL.GPU before it, which stalled the
// issuing warp every k-block and halved the cluster variant's throughput (docs/decisions/0004-gemm-kernel.md).
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t cluster_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}

}  // namespace pk::ptx
