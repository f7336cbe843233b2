#pragma once
// What every fused kernel receives (by value, __grid_constant__): the GEMM's own parameters
// plus the group, the signals and the peers' buffers. One struct for all fused kernels: each
// uses the fields of its schedule and leaves the others empty. Config: the GEMM's c1 tile
// (128 x 256 x 64, 4 stages, no cluster): any SM count, no cluster lockstep for per-tile waits.
#include <cuda.h>  // CUtensorMap (a plain struct)
#include <cuda_bf16.h>

#include "kernels/gemm/gemm_kernel.cuh"
#include "kernels/fused/fused_schedule.cuh"
#include "kernels/fused/fused_sync.cuh"

namespace pk::fused {

using Cfg = gemm::Config128x256<4, 1>;
static_assert(Cfg::CLUSTER_M == 1, "fused kernels take one tile per block (no cluster)");
static_assert(Cfg::BM == kHalves * Cfg::WG_M, "a unit is one consumer warpgroup's half of a tile");
// Inter-SM reduction communicator: kReducePipes pipelines per block, each one producer warp
// (lane q pulls GPU q's part of a piece) and kReduceSumWarps warps that sum a staged piece and
// store it with TMA. A piece is rows x BN bf16 of a unit per GPU; a ring holds `stages` pieces.
// reduce_ring() picks the largest piece whose rings still hold kReduceMinStages stages in the
// block's shared memory, then as many stages as fit: every piece costs a fixed issue and
// synchronisation time; with the same bytes in flight, pieces twice as large in half the
// stages were 1.2-1.6x faster (H100, virtual ranks, 92a2f05:microbench/fused/NOTES.md run 7).
// Inter-SM GEMM+RS on two GPUs adds in place: the compute blocks store the partial tiles of this
// GPU's own shard straight into its output (tmap_peer[rank]: a swizzled map of the shard, the
// GEMM's box), and the communicator pulls only the peer's piece and adds it there with a TMA
// reduce-add (one bf16 add, rounded once: the bits of the fp32 sum, as sum_pair). Half the bulk
// loads per output byte and no summing: the pair-sum trace left the loads as the limit. A stage
// then holds the peer's piece alone, so the same shared memory holds twice the stages.
__host__ __device__ constexpr bool reduce_in_place(int world, int reduce_to_all) { return world == 2 && !reduce_to_all; }
__host__ __device__ constexpr int reduce_stage_pieces(int world, int reduce_to_all) {
  return reduce_in_place(world, reduce_to_all) ? 1 : world;
}
inline constexpr int kReducePipes = 4;
inline constexpr int kReduceSumWarps = 2;
inline constexpr int kReduceMaxRows = 16, kReduceMinStages = 3, kReduceMaxStages = 8;
struct ReduceRing {
  int rows;    // rows of a unit per piece (one bulk copy per GPU); a power of two dividing WG_M
  int stages;  // pieces per ring
};
// `pieces`: the GPUs' pieces a stage holds (reduce_stage_pieces).
__host__ __device__ constexpr uint32_t reduce_stage_bytes(int pieces, int rows) {
  return static_cast<uint32_t>(pieces * rows * Cfg::BN * 2);
}
__host__ __device__ constexpr int reduce_stages_fitting(int pieces, int rows) {
  const uint64_t budget = Cfg::SMEM_BYTES - 1024;  // the kernel aligns its dynamic base to 1024 B
  const uint64_t s = budget / (uint64_t(kReducePipes) * (reduce_stage_bytes(pieces, rows) + 16));  // + full, empty mbarriers
  return static_cast<int>(s < kReduceMaxStages ? s : kReduceMaxStages);
}
__host__ __device__ constexpr ReduceRing reduce_ring(int pieces) {
  int rows = kReduceMaxRows;
  while (rows > 1 && reduce_stages_fitting(pieces, rows) < kReduceMinStages) rows /= 2;
  return ReduceRing{rows, reduce_stages_fitting(pieces, rows)};
}
static_assert(reduce_ring(kMaxGpus).stages >= 2, "every group size gets a ring");
static_assert(reduce_ring(1).rows * Cfg::BN / Cfg::EPI_COLS == Cfg::WG_M,
              "in place, a piece's box (tmap_out) is the GEMM's box (tmap_peer): the same rows");

static_assert(Cfg::WG_M % kReduceMaxRows == 0, "pieces tile a unit");
// Tile-major partials of the inter-SM reductions, seen as a column of EPI_COLS-wide rows: the
// WG_M x EPI_COLS box of C at (row, col) (multiples of those) is rows [r, r + WG_M) for
// r = partial_box_row(row, col, n), so unit (row / WG_M, col / BN) is BN / EPI_COLS
// consecutive boxes, WG_M x BN contiguous elements.
__host__ __device__ constexpr int partial_box_row(int row, int col, int n) {
  return (((row / Cfg::WG_M) * (n / Cfg::BN) + col / Cfg::BN) * (Cfg::BN / Cfg::EPI_COLS) + col % Cfg::BN / Cfg::EPI_COLS) *
         Cfg::WG_M;
}

struct FusedParams : gemm::GemmParams {
  FusedSync sync;
  int rank;              // this GPU in the group
  int world;             // GPUs in the group
  int reduce_to_all;     // GEMM+AR: every GPU gets the sum; GEMM+RS (0): only the rows' owner
  int order_first;       // interleaved order: index 0 belongs to shard (rank + order_first) % world
  int rows_per_flag;     // all-gather: tile rows per ready flag (1: communicator SMs; a chunk: copy engine)
  // Intra-SM: every GPU's output (RS/AR) or A (AG), addressed from here. Inter-SM RS in place
  // (reduce_in_place): [rank] is this GPU's output shard with the GEMM's box and swizzle.
  CUtensorMap tmap_peer[kMaxGpus];
  CUtensorMap tmap_out[kMaxGpus];   // inter-SM RS: this GPU's output shard ([rank]); AR: every GPU's output
  // Inter-SM RS/AR: the tile-major partial buffer of odd epochs (tmap_c: even; partial_box_row()).
  CUtensorMap tmap_c_odd;
  PeerTable<__nv_bfloat16> part;     // inter-SM RS/AR: every GPU's partial buffer, both parities (2 m n elements)
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
