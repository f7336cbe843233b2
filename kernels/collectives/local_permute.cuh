#pragma once
// The reshape copies a user of NCCL needs around a tensor-dimension collective (NCCL moves
// contiguous blocks only): dst[i1*dst1 + i0*dst0 + p*dst_self + j] = src[i1*src1 + i0*src0
// + p*src_p + j] for every block p of n, on one GPU. Same segment grid as push_segments.cuh.
#include "kernels/collectives/push_segments.cuh"

namespace pk::coll {

template <class T>
__global__ void __launch_bounds__(SegConfig::kThreads)
    local_permute_kernel(const T* __restrict__ src, T* __restrict__ dst, const __grid_constant__ SegLayout L, int n) {
  const uint32_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const uint64_t items = L.items();
  for (int p = 0; p < n; ++p)
    for (uint64_t it = blockIdx.x * uint64_t(warps) + warp; it < items; it += uint64_t(gridDim.x) * warps) {
      const Item m = item_of(L, it);
      warp_copy(dst + m.i1 * L.dst1 + m.i0 * L.dst0 + static_cast<uint64_t>(p) * L.dst_self + m.lo,
                src + m.i1 * L.src1 + m.i0 * L.src0 + static_cast<uint64_t>(p) * L.src_p + m.lo, m.hi - m.lo,
                L.vec != 0);
    }
}

}  // namespace pk::coll
