#pragma once
// Tile orders for the persistent GEMM. A tile index (0 .. tiles-1, the order in which the
// grid takes work) maps to the output tile it computes. Plain integer arithmetic compiled
// for host and device, so the CPU tests check exactly what the kernel runs.
//
// Work split: persistent block (or cluster) b of B takes indices b, b + B, b + 2B, ... so
// the tiles in flight at one moment are consecutive in the order: the order decides what
// shares L2 (grouped order) or what can start first (shard-arrival order).
#if defined(__CUDACC__)
#define PK_GEMM_HD __host__ __device__ __forceinline__
#else
#define PK_GEMM_HD inline
#endif

namespace pk::gemm {

struct TileCoord {
  int m;  // tile row (units of the tile's rows)
  int n;  // tile column
};

// Number of indices block `block` of `blocks` takes out of `tiles`.
PK_GEMM_HD int tiles_of_block(int block, int blocks, int tiles) {
  return block < tiles ? (tiles - 1 - block) / blocks + 1 : 0;
}

// Grouped ("swizzled") order: bands of `group_m` tile rows; inside a band, column after
// column, each column top to bottom. The tiles in flight at once then cover group_m row
// panels of A and about blocks/group_m column panels of B instead of one row of A and
// every column of B: far fewer distinct bytes per wave, so they stay in L2.
// The last band may be shorter. group_m < 1 is treated as 1.
PK_GEMM_HD TileCoord grouped_tile(int idx, int tiles_m, int tiles_n, int group_m) {
  if (group_m < 1) group_m = 1;
  const int per_band = group_m * tiles_n;
  const int band = idx / per_band;
  const int first_m = band * group_m;
  const int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const int in_band = idx - band * per_band;
  return TileCoord{first_m + in_band % rows, in_band / rows};
}

// Shard-arrival order for an all-gather + GEMM: A's rows arrive as `shards` equal,
// contiguous row shards (one per GPU); shard `first` (the local one) is ready at once, then
// first+1, first+2, ... (mod shards). All tiles of an earlier shard come before any tile
// of a later one; inside a shard, grouped order. Requires tiles_m % shards == 0.
PK_GEMM_HD TileCoord shard_arrival_tile(int idx, int tiles_m, int tiles_n, int group_m, int shards, int first) {
  const int shard_m = tiles_m / shards;
  const int per_shard = shard_m * tiles_n;
  const int s = idx / per_shard;
  const TileCoord t = grouped_tile(idx - s * per_shard, shard_m, tiles_n, group_m);
  const int shard = (first + s) % shards;
  return TileCoord{shard * shard_m + t.m, t.n};
}

// The shard (0 .. shards-1) that owns tile row `tile_m` when tiles_m rows are split evenly.
PK_GEMM_HD int shard_of_tile_row(int tile_m, int tiles_m, int shards) { return tile_m / (tiles_m / shards); }

}  // namespace pk::gemm
