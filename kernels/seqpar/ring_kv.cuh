#pragma once
// The ring-attention KV pass (sequence parallelism): N steps; in step i every rank computes on
// the K/V block it holds (the block of rank r - i) while the next block arrives from its ring
// neighbour r - 1. Device code shared by every schedule of microbench/seqpar:
//   values      the inputs' values, a pure function of (seed, index) on host and device alike:
//               multiples of 1/64 in [-1, 1), exact in bf16, so the stand-in's dot products of
//               128 terms are exact in fp32 and the host checks them to bf16 rounding;
//   pull        communication blocks copy the neighbour's block into this rank's next buffer
//               (16-B loads from the peer, stores to local HBM) after two waits on the
//               neighbours' pull counters (the left one has the block; the right one is done
//               reading the buffer about to be overwritten), then add one to their own counter
//               (release, system scope). Also a kernel of its own (the sequential schedule, the
//               transfer alone);
//   stand-in    attention's two matrix products on the block, as this suite's Hopper GEMM
//               (kernels/gemm/gemm_kernel.cuh) with the tile order, B loader and storer
//               changed: per head, C = Q K^T and Q V^T in one GEMM of M = S, N = 2 S, K = D (the
//               block's K and V rows of a head are adjacent: N = 2 S rows of B). Q V^T has the
//               cost and V's read pattern of P V (P is never in memory: flash attention keeps
//               it on chip; the suite's GEMM is TN, so P V would need V transposed and N = D =
//               128 < the GEMM's 256-column tile). Only the first 256 columns of each product
//               are stored (C is (B H S, 512): keys 0..255 of K and of V), as flash attention
//               writes O and never the S x S scores: the kernel stays compute bound as
//               attention is; the other tiles are computed and dropped.
//   communicator the inter-SM schedule: blocks past the GEMM's run the pull.
#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>

#include "kernels/gemm/gemm_kernel.cuh"
#include "kernels/seqpar/ring_values.cuh"
#include "kernels/ptx.cuh"
#include "kernels/spin_wait.cuh"
#include "kernels/status.cuh"

namespace pk::seqpar {

// Tags of this study's waits (DeviceStatus::tag's high bits).
inline constexpr unsigned long long kWaitLeft = 0x5E01ull << 32, kWaitRight = 0x5E02ull << 32;

struct PullParams {
  const uint4* src = nullptr;  // the left neighbour's block (peer address)
  uint4* dst = nullptr;        // this rank's next buffer
  int64_t vecs = 0;            // 16-B vectors of one block; 0: no pull in this step
  const int* left_done = nullptr;   // peer addresses of the neighbours' counters
  const int* right_done = nullptr;
  int* my_done = nullptr;
  int target = 0;              // both neighbours' counters reach it before the copy
  Deadline deadline;
};

#ifdef __CUDACC__

// Block `block` of `blocks` pulling blocks: waits, copies its share, counts itself done.
__device__ __forceinline__ void ring_pull_block(const PullParams& p, int block, int blocks) {
  if (p.vecs == 0) return;
  __shared__ int ok;
  if (threadIdx.x == 0) {
    ok = wait_flag_geq_sys(p.left_done, p.target, p.deadline, kWaitLeft | unsigned(p.target)) &&
         wait_flag_geq_sys(p.right_done, p.target, p.deadline, kWaitRight | unsigned(p.target));
  }
  __syncthreads();
  if (!ok) return;
  const int64_t stride = int64_t(blocks) * blockDim.x;
  int64_t i = int64_t(block) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < p.vecs; i += 4 * stride) {
    const uint4 a = p.src[i], b = p.src[i + stride], c = p.src[i + 2 * stride], d = p.src[i + 3 * stride];
    p.dst[i] = a;
    p.dst[i + stride] = b;
    p.dst[i + 2 * stride] = c;
    p.dst[i + 3 * stride] = d;
  }
  for (; i < p.vecs; i += stride) p.dst[i] = p.src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    atomicAdd_system(p.my_done, 1);
  }
}

static __global__ void __launch_bounds__(512) ring_pull_kernel(const PullParams p) {
  ring_pull_block(p, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
}

// Fills `n` bf16 values of (seed) from element `first` on.
static __global__ void fill_values_kernel(uint16_t* dst, int64_t n, uint64_t seed) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = value_bits(seed, uint64_t(i));
}

#endif  // __CUDACC__

// The stand-in GEMM: 128 x 256 x 64 tiles, 4 stages, no cluster (any SM count).
using RingGemmCfg = gemm::Config128x256<4, 1>;
inline constexpr int kStoredCols = 2 * RingGemmCfg::BN;  // C's columns: 256 of Q K^T, 256 of Q V^T

struct RingGemmParams : gemm::GemmParams {
  int heads = 0;    // B * H
  int s_tiles = 0;  // S / BM: Q's row tiles (and key tiles of 128) per head
  int n_tiles = 0;  // 2 S / BN: the K and V rows of a head in tiles of 256
  int seq = 0;      // S per rank
  PullParams pull;  // the communicator blocks' (inter-SM)
};

#ifdef __CUDACC__

struct RingGemmOps : gemm::GemmOps<RingGemmCfg> {
  using Params = RingGemmParams;
  using Cfg = RingGemmCfg;
  __device__ static int num_tiles(const Params& p) { return p.heads * p.s_tiles * p.n_tiles; }
  // Head by head; inside a head the GEMM's grouped order. m is the global Q row tile.
  __device__ static gemm::TileCoord tile(const Params& p, int idx) {
    const int per_head = p.s_tiles * p.n_tiles;
    const int head = idx / per_head;
    const gemm::TileCoord t = gemm::grouped_tile(idx - head * per_head, p.s_tiles, p.n_tiles, p.group_m);
    return gemm::TileCoord{head * p.s_tiles + t.m, t.n};
  }
  // B: the head's 2 S rows (K, then V) of the block, rows (head * 2 S + n * 256).
  __device__ static void load_b(const Params& p, gemm::TileCoord t, int kb, uint32_t, uint32_t dst, uint32_t full_bar) {
    const int head = t.m / p.s_tiles;
    ptx::tensor_load_2d(dst, &p.tmap_b, kb * Cfg::BK, head * 2 * p.seq + t.n * Cfg::BN, full_bar);
  }
  // The first tile of K (columns 0..255) and of V (256..511); the others are dropped.
  __device__ static void store_box(const Params& p, gemm::TileCoord t, int row, int col, uint32_t src) {
    const int v_tile = p.seq / Cfg::BN;
    if (t.n == 0)
      ptx::tensor_store_2d(&p.tmap_c, col, row, src);
    else if (t.n == v_tile)
      ptx::tensor_store_2d(&p.tmap_c, col - v_tile * Cfg::BN + Cfg::BN, row, src);
  }
  __device__ static void communicator(const Params& p, int block, int blocks, uint32_t) { ring_pull_block(p.pull, block, blocks); }
};

#endif  // __CUDACC__

}  // namespace pk::seqpar
