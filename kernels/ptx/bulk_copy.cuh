#pragma once
// TMA: 1-D bulk copies and 2-D tensor-tile copies between global and shared memory, and
// their bulk-group completion. The waits are CCCL's cuda::ptx (the same instruction, with a
// "memory" clobber). The rest is hand-written: cuda::ptx's copies take generic pointers and
// convert them to shared addresses themselves, while the kernels hold 32-bit shared
// addresses; and its cp_async_bulk_commit_group has no "memory" clobber, so the compiler
// could move the shared-memory writes a copy reads past the commit.
#include <cstdint>
#include <cuda/ptx>

namespace pk::ptx {

__device__ __forceinline__ void bulk_load(uint32_t smem_dst, const void* gmem_src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_dst),
               "l"(gmem_src), "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ void bulk_store(void* gmem_dst, uint32_t smem_src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem_dst), "r"(smem_src), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// All but the newest N committed groups have finished reading shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<N>{});
}
// All but the newest N committed groups have completed (writes performed).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<N>{});
}

// ---- 2-D tiles; the tensor map lives in param/const/global space ----
__device__ __forceinline__ void tensor_load_2d(uint32_t smem_dst, const void* tmap, int32_t c0, int32_t c1, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_dst),
      "l"(tmap), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void tensor_store_2d(const void* tmap, int32_t c0, int32_t c1, uint32_t smem_src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(tmap), "r"(c0),
               "r"(c1), "r"(smem_src)
               : "memory");
}
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

}  // namespace pk::ptx

// The GEMM's and the fused kernels' name for the cluster and TMA wrappers (tma::...).
namespace pk {
namespace tma = ptx;
}
