#pragma once
// Tile orders and ownership of the fused kernels. Plain integer arithmetic compiled for host
// and device (the CPU tests check exactly what the kernels run), on top of the GEMM's
// grouped and shard-arrival orders (kernels/gemm/schedule.cuh).
//
// Rows of the output (GEMM+RS, GEMM+AR) or of A (AG+GEMM) are split into `shards` equal,
// contiguous row shards, one per GPU: shard s = tile rows [s * tiles_m / shards, ...).
//
// Why the orders differ per kernel:
//   interleaved     GEMM+RS (both schedules) and GEMM+AR inter-SM: consecutive indices go to
//                   consecutive shards, (first + i) % shards, so every GPU sends to every owner
//                   throughout the kernel instead of one owner at a time (which would leave all
//                   but one link idle), and every GPU produces owner o's j-th tile at nearly the
//                   same moment (index j * shards + small), so the owner's communicator finds
//                   all contributions of a tile together.
//   shard arrival   AG+GEMM inter-SM and copy engine: all tiles of the local shard first, then
//                   shard rank+1, rank+2, ... in the order the communicator brings them.
//   grouped         GEMM+AR intra-SM: every tile goes to every GPU, so only L2 reuse matters.
// Every order has an inverse (tile -> index): hooks that receive a tile find out whether it
// is their block's first or last tile and which tile their block computed before it.
#include "kernels/gemm/schedule.cuh"

namespace pk::fused {

using gemm::TileCoord;

// Inverse of gemm::grouped_tile.
PK_GEMM_HD int grouped_index(TileCoord t, int tiles_m, int tiles_n, int group_m) {
  if (group_m < 1) group_m = 1;
  const int band = t.m / group_m;
  const int first_m = band * group_m;
  const int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  return band * group_m * tiles_n + t.n * rows + (t.m - first_m);
}

// Index i is tile i / shards (grouped order inside its shard) of shard (first + i) % shards.
// Requires tiles_m % shards == 0.
PK_GEMM_HD TileCoord interleaved_tile(int idx, int tiles_m, int tiles_n, int group_m, int shards, int first) {
  const int shard_m = tiles_m / shards;
  const int shard = (first + idx % shards) % shards;
  const TileCoord t = gemm::grouped_tile(idx / shards, shard_m, tiles_n, group_m);
  return TileCoord{shard * shard_m + t.m, t.n};
}

PK_GEMM_HD int interleaved_index(TileCoord t, int tiles_m, int tiles_n, int group_m, int shards, int first) {
  const int shard_m = tiles_m / shards;
  const int shard = t.m / shard_m;
  const int j = grouped_index(TileCoord{t.m - shard * shard_m, t.n}, shard_m, tiles_n, group_m);
  return j * shards + ((shard - first) % shards + shards) % shards;
}

// Inverse of gemm::shard_arrival_tile.
PK_GEMM_HD int shard_arrival_index(TileCoord t, int tiles_m, int tiles_n, int group_m, int shards, int first) {
  const int shard_m = tiles_m / shards;
  const int shard = t.m / shard_m;
  const int pos = ((shard - first) % shards + shards) % shards;
  return pos * shard_m * tiles_n + grouped_index(TileCoord{t.m - shard * shard_m, t.n}, shard_m, tiles_n, group_m);
}

// The unit of the inter-SM reductions: half a 128 x 256 tile, the 64 rows one consumer
// warpgroup stores and flags. Units of one shard are numbered in the order the compute
// blocks produce them: unit u is half u % 2 of the shard's tile u / 2 in grouped order.
inline constexpr int kHalves = 2;

struct Unit {
  TileCoord tile;  // global tile coordinates
  int half;        // 0: rows [0, 64) of the tile, 1: rows [64, 128)
};

PK_GEMM_HD int units_per_shard(int tiles_m, int tiles_n, int shards) { return tiles_m / shards * tiles_n * kHalves; }

PK_GEMM_HD Unit shard_unit(int u, int shard, int tiles_m, int tiles_n, int group_m, int shards) {
  const int shard_m = tiles_m / shards;
  const TileCoord t = gemm::grouped_tile(u / kHalves, shard_m, tiles_n, group_m);
  return Unit{TileCoord{shard * shard_m + t.m, t.n}, u % kHalves};
}

// Flag slot of a unit: one word per (unit, source GPU), in the owner's memory.
PK_GEMM_HD int unit_slot(TileCoord t, int half, int tiles_n, int src, int max_gpus) {
  return ((t.m * tiles_n + t.n) * kHalves + half) * max_gpus + src;
}

// Tiles block `block` of `blocks` computes (indices block, block + blocks, ...) whose index
// i satisfies (first + i) % shards == shard: what an interleaved-order block sends to owner
// `shard`, without walking the tiles.
PK_GEMM_HD int interleaved_tiles_to_shard(int block, int blocks, int tiles, int shards, int first, int shard) {
  int n = 0;
  for (int i = block; i < tiles; i += blocks)
    if ((first + i) % shards == shard) ++n;
  return n;
}

// All-gather copies (inter-SM communicator): the list of tile rows a GPU must bring, in the
// order its compute blocks consume them (shard rank+1's rows, then rank+2's, ...); entry j of
// the list is the tile row ag_copy_row(j, ...). Communicator block b takes entries b, b + B, ...
PK_GEMM_HD int ag_copy_rows(int tiles_m, int shards) { return (shards - 1) * (tiles_m / shards); }
PK_GEMM_HD int ag_copy_row(int j, int rank, int tiles_m, int shards) {
  const int shard_m = tiles_m / shards;
  return ((rank + 1 + j / shard_m) % shards) * shard_m + j % shard_m;
}

}  // namespace pk::fused
