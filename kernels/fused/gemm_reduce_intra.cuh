#pragma once
// GEMM + reduce-scatter and GEMM + all-reduce, intra-SM overlap: the storer of every compute
// block sends each finished 64 x 64 box of its tile straight into the owner's output with a
// TMA reduce-add (cp.reduce.async.bulk.tensor.2d.global.shared::cta.add, bf16 add at the
// destination) through a tensor map built over that GPU's buffer. No SM is set aside; the
// communication rides in the epilogue's bulk groups.
//   RS (reduce_to_all = 0): a box goes to the GPU owning its rows (output: that GPU's shard).
//   AR (reduce_to_all = 1): a box goes to every GPU (output: the whole sum everywhere), which
//                           sends world x the bytes of RS: the paper's Figure 4 (right).
//
// Protocol of one launch (epoch e), per GPU:
//   before     the host zeroes this GPU's output (cudaMemsetAsync, part of the timed op)
//   start      block 0's producer tells every peer "zeroed for e" (kSlotZeroed)
//   per tile   a producer waits for its tile's owner(s) to be zeroed before loading it, so
//              no reduce-add can reach an output before that GPU's zeroing
//   end        each consumer, after its block's last tile, waits for all its reduce-adds
//              (bulk wait_group 0), fences the async proxy and adds its count of units sent
//              to each owner into that owner's done counter (red.release.sys); block 0's first
//              consumer then waits until this GPU's counter has every GPU's contribution of
//              this launch, so the kernel ends only when its output is complete
// The next launch's zeroing follows this launch's end in stream order, so it can never
// erase a late reduce-add of this launch.
#include "kernels/fused/fused_params.cuh"

namespace pk::fused {

struct ReduceIntraOps : InterleavedOrder {
  // RS: interleaved over the owners (every link busy all the time); AR: plain grouped order.
  __device__ static TileCoord tile(const Params& p, int i) {
    if (p.reduce_to_all) return gemm::grouped_tile(i, tiles_m(p), tiles_n(p), p.group_m);
    return InterleavedOrder::tile(p, i);
  }
  __device__ static int index_of(const Params& p, TileCoord t) {
    if (p.reduce_to_all) return grouped_index(t, tiles_m(p), tiles_n(p), p.group_m);
    return InterleavedOrder::index_of(p, t);
  }

  __device__ static bool before_tile_loads(const Params& p, TileCoord t) {
    const int idx = index_of(p, t);
    const int e = start_tile(p, idx, kSlotZeroed);
    bool ok = true;
    if (p.reduce_to_all) {
      if (is_first_tile(idx))
        for (int q = 0; q < p.world && ok; ++q)
          if (q != p.rank) ok = wait_slot(p.sync, kSlotZeroed, 0, q, e, p.deadline, kWaitZeroed);
    } else {
      const int o = shard_of(p, t.m);
      if (o != p.rank) ok = wait_slot(p.sync, kSlotZeroed, 0, o, e, p.deadline, kWaitZeroed);
    }
    // The peers' zeroing (generic proxy) is ordered before this block's reduce-adds (async).
    tma::fence_proxy_async_global();
    return ok;
  }

  __device__ static void store_box(const Params& p, TileCoord t, int row, int col, uint32_t src) {
    if (p.reduce_to_all) {
      for (int k = 1; k <= p.world; ++k)  // peers first (rotated), this GPU last
        tma::tensor_reduce_add_2d(&p.tmap_peer[(p.rank + k) % p.world], col, row, src);
    } else {
      const int o = shard_of(p, t.m);
      tma::tensor_reduce_add_2d(&p.tmap_peer[o], col, row - o * (p.m / p.world), src);
    }
  }

  __device__ static void after_tile_stored(const Params& p, TileCoord t, int consumer) {
    const int idx = index_of(p, t);
    if (!is_last_tile(p, idx)) return;
    // Every reduce-add this thread issued has been performed at its destination; the async
    // proxy's writes are then ordered before the generic-proxy release below.
    ptx::bulk_wait_group<0>();
    tma::fence_proxy_async_global();
    const int tiles = fused::num_tiles(p);
    for (int q = 0; q < p.world; ++q) {
      const int units = p.reduce_to_all ? gemm::tiles_of_block(blockIdx.x, p.compute_blocks, tiles)
                                        : interleaved_tiles_to_shard(blockIdx.x, p.compute_blocks, tiles, p.world,
                                                                     p.rank + p.order_first, q);
      if (units) ptx::red_release_sys_add(p.sync.done.at[q], units);
    }
    if (blockIdx.x == 0 && consumer == 0) {
      // Each GPU's every consumer adds one per unit (half tile) it sent here.
      const int per_launch = p.world * kHalves * (p.reduce_to_all ? tiles : tiles / p.world);
      wait_flag_geq_sys(p.sync.done.local(), block_epoch() * per_launch, p.deadline, kWaitDone);
    }
  }
};

}  // namespace pk::fused
