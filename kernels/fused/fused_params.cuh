#pragma once
// What every fused kernel receives (by value, __grid_constant__): the GEMM's own parameters
// plus the group, the signals and the peers' buffers. One struct for all fused kernels: each
// uses the fields of its schedule and leaves the others empty. Config: the GEMM's c1 tile
// (128 x 256 x 64, 4 stages, no cluster): any SM count, no cluster lockstep for per-tile waits.
#include <cuda.h>  // CUtensorMap (a plain struct)
#include <cuda_bf16.h>

#include "../gemm/gemm_kernel.cuh"
#include "fused_schedule.cuh"
#include "fused_sync.cuh"

namespace pk::fused {

using Cfg = gemm::Config128x256<4, 1>;
static_assert(Cfg::CLUSTER_M == 1, "fused kernels take one tile per block (no cluster)");
static_assert(Cfg::BM == kHalves * Cfg::WG_M, "a unit is one consumer warpgroup's half of a tile");
// Inter-SM reduction: kReducePipes warps per communicator block, each driving a ring of
// kReduceStages pieces (two loads in flight while one is summed); a piece is one box of
// piece_rows x BN bf16 per GPU. The host picks piece_rows so that the rings fit.
inline constexpr int kReduceStages = 3;
inline constexpr int kReducePipes = 4;
__host__ __device__ constexpr uint32_t reduce_ring_bytes(int world, int piece_rows) {
  return static_cast<uint32_t>(kReduceStages * world * piece_rows * Cfg::BN * 2);
}
// The communicator's shared memory: the rings, then one mbarrier per stage of each.
__host__ __device__ constexpr uint64_t reduce_comm_smem_bytes(int world, int piece_rows) {
  return uint64_t(kReducePipes) * (reduce_ring_bytes(world, piece_rows) + 8 * kReduceStages);
}

struct FusedParams : gemm::GemmParams {
  FusedSync sync;
  int rank;              // this GPU in the group
  int world;             // GPUs in the group
  int reduce_to_all;     // GEMM+AR: every GPU gets the sum; GEMM+RS (0): only the rows' owner
  int order_first;       // interleaved order: index 0 belongs to shard (rank + order_first) % world
  int rows_per_flag;     // all-gather: tile rows per ready flag (1: communicator SMs; a chunk: copy engine)
  int piece_rows;        // inter-SM reduction: rows of a unit staged per pipeline step (one TMA box)
  // Intra-SM: every GPU's output (RS/AR) or A (AG), addressed from here. Inter-SM RS/AR: every
  // GPU's partial buffer, both parities (2m rows), boxes of BN x piece_rows.
  CUtensorMap tmap_peer[kMaxGpus];
  CUtensorMap tmap_out[kMaxGpus];   // inter-SM RS: this GPU's output shard ([rank]); AR: every GPU's output
  CUtensorMap tmap_c_odd;           // inter-SM RS/AR: the partial buffer of odd epochs (tmap_c: even)
  PeerTable<__nv_bfloat16> a;        // inter-SM AG: every GPU's A (M x K, its own shard in its rows)
};

#ifdef __CUDACC__
__device__ __forceinline__ int tiles_m(const FusedParams& p) { return p.m / Cfg::BM; }
__device__ __forceinline__ int tiles_n(const FusedParams& p) { return p.n / Cfg::BN; }
__device__ __forceinline__ int num_tiles(const FusedParams& p) { return tiles_m(p) * tiles_n(p); }
// The GPU that owns tile row `tm`: row shards of C (RS, AR) or of A (AG).
__device__ __forceinline__ int shard_of(const FusedParams& p, int tm) { return tm / (tiles_m(p) / p.world); }
__device__ __forceinline__ bool is_first_tile(int idx) { return idx == static_cast<int>(blockIdx.x); }
__device__ __forceinline__ bool is_last_tile(const FusedParams& p, int idx) { return idx + p.compute_blocks >= num_tiles(p); }

// The producer's epoch bookkeeping: it is the first role of a compute block to run (its
// shared-memory write reaches the consumers through the ring's mbarriers) and its last tile
// ends its use of the counter.
__device__ __forceinline__ int producer_epoch(const FusedParams& p, int idx) {
  const int e = is_first_tile(idx) ? begin_block_epoch(p.sync) : block_epoch();
  if (is_last_tile(p, idx)) end_block_epoch(p.sync, e);
  return e;
}

// The producer's first act for tile `idx`: the launch's epoch and, at block 0's first tile,
// the "ready" slot `announce` (kSlotZeroed, kSlotShardReady; -1: none) sent to every peer.
__device__ __forceinline__ int start_tile(const FusedParams& p, int idx, int announce) {
  const int e = producer_epoch(p, idx);
  if (announce >= 0 && is_first_tile(idx) && blockIdx.x == 0)
    for (int q = 0; q < p.world; ++q)
      if (q != p.rank) signal_slot(p.sync, announce, 0, q, e);
  return e;
}

// The interleaved tile order (fused_schedule.cuh): index 0 belongs to shard
// (rank + order_first) % world.
struct InterleavedOrder : gemm::GemmOps<Cfg> {
  using Params = FusedParams;
  __device__ static int num_tiles(const Params& p) { return fused::num_tiles(p); }
  __device__ static TileCoord tile(const Params& p, int i) {
    return interleaved_tile(i, tiles_m(p), tiles_n(p), p.group_m, p.world, p.rank + p.order_first);
  }
  __device__ static int index_of(const Params& p, TileCoord t) {
    return interleaved_index(t, tiles_m(p), tiles_n(p), p.group_m, p.world, p.rank + p.order_first);
  }
};
#endif

}  // namespace pk::fused
