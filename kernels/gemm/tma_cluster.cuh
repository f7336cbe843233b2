#pragma once
// PTX wrappers the GEMM needs beyond kernels/ptx.cuh: thread-block clusters (rank, barrier,
// remote mbarrier arrive), the multicast TMA load, the TMA reduce-add store a fused
// GEMM+reduce-scatter epilogue uses, tensor-map prefetch, and a 32-bit shared store.
// One instruction per wrapper, each with a "memory" clobber.
#include <cstdint>

#include "../ptx.cuh"

namespace pk::tma {

// ---- clusters ----
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)::"memory");
  return r;
}
// Every thread of every CTA of the cluster arrives, then waits: release/acquire at cluster
// scope, so mbarrier initialisation (and anything else) before it is visible to the peers.
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
// The shared::cluster address of the same shared::cta offset in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t map_to_rank(uint32_t smem_addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr), "r"(rank) : "memory");
  return r;
}
// Arrive on an mbarrier anywhere in the cluster (own CTA included), with the default
// .release.cta semantics. Used to free a stage that a peer's multicast will overwrite: what
// must precede the arrive is only that this warpgroup's wgmma reads of the stage are done,
// which wgmma.wait_group already guarantees. The .release.cluster form is NOT used on
// purpose: ptxas emits MEMBAR.ALL.CTA + MEMBAR.ALL.GPU before it, which stalled the
// issuing warp every k-block and halved the cluster variant's throughput (NOTES.md, run 1).
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t cluster_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}

// ---- TMA tensor copies ----
// Loads one 2-D box and writes it to the same shared offset in every CTA of `cta_mask`,
// completing `box bytes` on the mbarrier at the same offset in each of them.
__device__ __forceinline__ void tensor_load_2d_multicast(uint32_t smem_dst, const void* tmap, int32_t c0, int32_t c1,
                                                         uint32_t bar, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_dst),
      "l"(tmap), "r"(c0), "r"(c1), "r"(bar), "h"(cta_mask)
      : "memory");
}
// Element-wise add of a shared-memory box into global memory (bf16 add for a bf16 map);
// the map may be built over a peer GPU's buffer. Completes with the bulk-group like a store.
__device__ __forceinline__ void tensor_reduce_add_2d(const void* tmap, int32_t c0, int32_t c1, uint32_t smem_src) {
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(tmap),
               "r"(c0), "r"(c1), "r"(smem_src)
               : "memory");
}
// Async-proxy writes to global memory ordered before the generic-proxy operations that
// follow (a flag store): defined with the other proxy fences in kernels/ptx.cuh.
using ::pk::ptx::fence_proxy_async_global;

// ---- shared memory ----
__device__ __forceinline__ void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

}  // namespace pk::tma
