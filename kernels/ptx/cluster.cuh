#pragma once
// Thread-block clusters: the cluster barrier and shared::cluster addresses. Hand-written:
// cuda::ptx's barrier_cluster_* have no .aligned form (the GEMM's every thread arrives
// together), and it has no mapa.
#include <cstdint>

namespace pk::ptx {

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

}  // namespace pk::ptx
