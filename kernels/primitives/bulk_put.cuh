#pragma once
// Bulk put with an optional signal per message, PK style, for the message-size sweep beside
// NVSHMEM's putmem_nbi / putmem_signal_nbi at warp and block scope. A group (a warp, or the
// whole block) copies one message with 16-B register loads and stores (four in flight per
// thread), then, with a signal, synchronises and one thread adds 1 to the receiver's counter
// with red.release.sys: the release is cumulative, so the group's data stores, ordered
// before it by the group barrier, are visible to whoever acquires the counter. Messages are
// spread over the groups of the grid; a pass moves n_msgs * msg_bytes.
#include <cstdint>

#include "kernels/peer_table.cuh"
#include "kernels/ptx.cuh"

namespace pk::prim {

enum class Scope { thread, warp, block };

template <Scope S, bool Signal>
__global__ void pk_bulk_kernel(PeerTable<char> dst, int pe, const char* __restrict__ src, uint32_t msg_bytes,
                               uint64_t n_msgs, int* peer_counter) {
  static_assert(S != Scope::thread, "bulk puts are issued by a warp or a block");
  constexpr int kUnroll = 4;
  const uint32_t G = S == Scope::warp ? 32u : blockDim.x;
  const uint32_t lane = threadIdx.x % G;
  const uint64_t per_block = blockDim.x / G;
  const uint64_t groups = uint64_t(gridDim.x) * per_block;
  const uint64_t group = uint64_t(blockIdx.x) * per_block + threadIdx.x / G;
  char* peer = dst.at[pe];
  const uint32_t n_vec = msg_bytes / 16;
  for (uint64_t m = group; m < n_msgs; m += groups) {
    const uint4* s = reinterpret_cast<const uint4*>(src + m * msg_bytes);
    uint4* d = reinterpret_cast<uint4*>(peer + m * msg_bytes);
    for (uint32_t base = lane; base < n_vec; base += G * kUnroll) {
      uint4 r[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (base + u * G < n_vec) r[u] = s[base + u * G];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (base + u * G < n_vec) d[base + u * G] = r[u];
    }
    if constexpr (Signal) {
      if constexpr (S == Scope::warp) __syncwarp();
      else __syncthreads();
      if (lane == 0) pk::ptx::red_release_sys_add(peer_counter, 1);
    }
  }
}

}  // namespace pk::prim
