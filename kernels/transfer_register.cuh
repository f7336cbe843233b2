#pragma once
// Register transfers: every thread loads VEC bytes into registers and stores them to the
// destination (ld/st through the SM's load-store path). A block moves one message per
// iteration; UNROLL independent loads are issued before the first store so that enough
// bytes are in flight to cover NVLink latency.
#include <cstdint>

#include "kernels/ptx.cuh"

namespace pk::transfer {

template <int VecBytes> struct VecType;
template <> struct VecType<4> { using type = uint32_t; };
template <> struct VecType<8> { using type = uint2; };
template <> struct VecType<16> { using type = uint4; };

// L2Hint256: loads carry the .L2::256B prefetch-size hint (16-byte vectors only), asking
// for 256-B requests where a plain load makes 128-B ones.
template <int VecBytes, int Unroll, bool L2Hint256 = false>
struct RegisterCopyConfig {
  static_assert(!L2Hint256 || VecBytes == 16, "the 256-B hint is wired for 16-byte loads");
  static constexpr int kVecBytes = VecBytes;
  static constexpr int kUnroll = Unroll;
  static constexpr bool kL2Hint256 = L2Hint256;
  using vec_t = typename VecType<VecBytes>::type;
};

template <class Cfg>
__global__ void register_copy_kernel(const char* __restrict__ src, char* __restrict__ dst, uint64_t n_msgs,
                                     uint32_t msg_bytes) {
  using V = typename Cfg::vec_t;
  const uint32_t n_vec = msg_bytes / Cfg::kVecBytes;
  const uint32_t stride = blockDim.x * Cfg::kUnroll;
  for (uint64_t k = blockIdx.x; k < n_msgs; k += gridDim.x) {
    const V* s = reinterpret_cast<const V*>(src + k * msg_bytes);
    V* d = reinterpret_cast<V*>(dst + k * msg_bytes);
    for (uint32_t base = threadIdx.x; base < n_vec; base += stride) {
      V r[Cfg::kUnroll];
#pragma unroll
      for (int u = 0; u < Cfg::kUnroll; ++u) {
        const uint32_t i = base + u * blockDim.x;
        if (i < n_vec) {
          if constexpr (Cfg::kL2Hint256) r[u] = ptx::ld_global_l2_256b(s + i);
          else r[u] = s[i];
        }
      }
#pragma unroll
      for (int u = 0; u < Cfg::kUnroll; ++u) {
        const uint32_t i = base + u * blockDim.x;
        if (i < n_vec) d[i] = r[u];
      }
    }
  }
}

}  // namespace pk::transfer
