#pragma once
// All-gather + GEMM: A (M x K) is split into row shards, GPU g holding shard g in rows
// [g * M / world, ...) of its own A buffer; every GPU computes C = A_gathered * B_g^T.
//
// AgPullOps, inter-SM (comm_blocks > 0): communicator blocks pull the peers' shards into the
// local A with TMA (1-D bulk copies staged through shared memory, four warp pipelines per
// block), tile rows (BM rows x K, contiguous) in the order the compute blocks consume them:
// shard rank+1, rank+2, ...; each chunk whose store completed (wait_group +
// fence.proxy.async.global) is added to its row's flag (red.release.gpu: only this GPU reads
// it), which holds e x chunks-per-row once launch e's row has landed. Compute
// blocks take tiles in shard-arrival order (local shard first) and a producer waits for its
// tile row's flag (acquire, then fence.proxy.async.global: the data is read by TMA).
// The same ops with comm_blocks = 0 run the copy-engine schedule: the host queues
// cudaMemcpyAsync of each chunk of rows_per_flag tile rows on a second stream followed by
// cuStreamWriteValue32(flag, e) (a write with a memory barrier: the flag holds e); the kernel
// is unchanged and tells the two apart by its grid (no blocks beyond the compute blocks).
//
// AgRemoteOps, intra-SM: no copy at all; the loader reads remote A tiles directly with TMA
// through a tensor map per GPU built over that GPU's A. A tile of A is re-read once per tile
// column of C and remote data is cached only in the owner's L2 ("far-side" caching), so this
// moves tiles_n x the shard over NVLink: the paper's remote-cache-reuse argument, measured.
//
// Both: a peer's shard is read only after it said "ready for epoch e" (kSlotShardReady, sent
// by its block 0's producer when its kernel starts). Local rows the peers read are never
// written by a fused launch, so nothing guards their reuse.
#include "kernels/fused/fused_params.cuh"

namespace pk::fused {

struct AgPullOps : gemm::GemmOps<Cfg> {
  using Params = FusedParams;
  static constexpr uint32_t kChunk = 16 * 1024;   // bytes per bulk copy (a tile row of A is BM x K x 2 bytes)
  static constexpr int kPipes = 4;                // warps of a communicator block, each driving a ring
  static constexpr int kStages = 3;               // 4 x 3 x 16 KiB = 192 KiB of staging per block
  static_assert(kPipes * kStages * (kChunk + 8) <= Cfg::SMEM_BYTES - 1024, "staging fits the block's shared memory");
  static_assert(kPipes * 32 <= Cfg::THREADS, "a warp per pipeline");
  static_assert(Cfg::BM * Cfg::BK * 2 % kChunk == 0, "a tile row is whole chunks");

  __device__ static int num_tiles(const Params& p) { return fused::num_tiles(p); }
  __device__ static TileCoord tile(const Params& p, int i) {
    return gemm::shard_arrival_tile(i, tiles_m(p), tiles_n(p), p.group_m, p.world, p.rank);
  }
  __device__ static int index_of(const Params& p, TileCoord t) {
    return shard_arrival_index(t, tiles_m(p), tiles_n(p), p.group_m, p.world, p.rank);
  }

  __device__ static int chunks_per_row(const Params& p) { return static_cast<int>(int64_t(Cfg::BM) * p.k * 2 / kChunk); }
  // What a ready flag holds once launch e's rows landed: every chunk added (communicator
  // blocks), or e itself (the copy engine's write; the grid has only compute blocks).
  __device__ static int ready_value(const Params& p, int e) {
    return static_cast<int>(gridDim.x) > p.compute_blocks ? e * chunks_per_row(p) : e;
  }

  __device__ static bool before_tile_loads(const Params& p, TileCoord t) {
    const int e = start_tile(p, index_of(p, t), kSlotShardReady);
    if (shard_of(p, t.m) == p.rank) return true;
    const bool ok = wait_flag_geq_sys(p.sync.flags.local() + t.m / p.rows_per_flag, ready_value(p, e), p.deadline,
                                      kWaitRow | static_cast<unsigned long long>(t.m));
    tma::fence_proxy_async_global();  // rows written through the async proxy (or the copy engine), read by TMA
    return ok;
  }

  // Each communicator block copies tile rows block, block + blocks, ... of the list (shard
  // rank+1's rows, then rank+2's, ...), chunk by chunk; chunk J of the block goes to warp
  // J % kPipes, whose lane 0 drives its own kStages-deep ring (the transfer study's shape: four
  // such pipelines per SM pulled ~50 GB/s with TMA; one thread driving a 12-deep ring measured
  // ~15 GB/s per SM on the first H200x2 run). A chunk's store is waited for in full before its
  // stage is refilled; the completed chunks of a row are then added to the row's flag
  // (fence.proxy.async.global, red.release.gpu: only this GPU reads it), one add per run of a
  // row's chunks, so the flag reaches e x chunks-per-row once the whole row has landed.
  __device__ static void communicator(const Params& p, int block, int blocks, uint32_t smem) {
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    if (threadIdx.x == 0) begin_block_epoch(p.sync);
    __syncthreads();
    const int e = block_epoch();
    if (warp < kPipes && lane == 0) {
      const uint32_t ring = smem + static_cast<uint32_t>(warp) * kStages * kChunk;
      const uint32_t bars = smem + kPipes * kStages * kChunk + static_cast<uint32_t>(warp) * kStages * 8;
      for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(bars + 8 * s, 1);
      ptx::fence_mbarrier_init();
      pipeline(p, block, blocks, warp, e, ring, bars);
    }
    __syncthreads();
    if (threadIdx.x == 0) end_block_epoch(p.sync, e);
  }

  __device__ static void pipeline(const Params& p, int block, int blocks, int warp, int e, uint32_t ring, uint32_t bars) {
    const int list = ag_copy_rows(tiles_m(p), p.world);
    const int64_t my_rows = list > block ? (list - 1 - block) / blocks + 1 : 0;
    const int64_t row_elems = int64_t(Cfg::BM) * p.k;
    const int64_t per_row = chunks_per_row(p);
    const int64_t chunk_elems = kChunk / 2;
    const int64_t block_chunks = my_rows * per_row;
    const int64_t total = block_chunks > warp ? (block_chunks - 1 - warp) / kPipes + 1 : 0;
    auto chunk = [&](int64_t j) { return warp + j * kPipes; };  // this warp's j-th chunk of the block
    auto row_of = [&](int64_t j) { return ag_copy_row(block + static_cast<int>(chunk(j) / per_row) * blocks, p.rank, tiles_m(p), p.world); };
    int ready = -1;  // the shard whose ready slot has been acquired
    auto issue = [&](int64_t j) -> bool {
      const int tm = row_of(j);
      const int s = shard_of(p, tm);
      if (s != ready) {
        if (!wait_slot(p.sync, kSlotShardReady, 0, s, e, p.deadline, kWaitShard)) return false;
        tma::fence_proxy_async_global();
        ready = s;
      }
      const uint32_t st = static_cast<uint32_t>(j % kStages);
      ptx::mbarrier_arrive_expect_tx(bars + 8 * st, kChunk);
      ptx::bulk_load(ring + st * kChunk, p.a.at[s] + tm * row_elems + (chunk(j) % per_row) * chunk_elems, kChunk, bars + 8 * st);
      return true;
    };
    // Completed chunks not yet added to their row's flag: `pending` of row `pending_row`.
    int pending_row = -1, pending = 0;
    auto completed = [&](int64_t j) {  // chunk j's store is complete (wait_group done)
      const int tm = row_of(j);
      if (tm != pending_row && pending > 0) {
        tma::fence_proxy_async_global();
        ptx::red_release_gpu_add(p.sync.flags.local() + pending_row, pending);
        pending = 0;
      }
      pending_row = tm;
      ++pending;
    };

    bool ok = true;
    for (int64_t j = 0; ok && j < total && j < kStages - 1; ++j) ok = issue(j);
    for (int64_t j = 0; ok && j < total; ++j) {
      const uint32_t st = static_cast<uint32_t>(j % kStages);
      if (!mbarrier_wait(bars + 8 * st, static_cast<uint32_t>((j / kStages) & 1), p.deadline)) {
        ok = false;
        break;
      }
      ptx::bulk_store(p.a.local() + row_of(j) * row_elems + (chunk(j) % per_row) * chunk_elems, ring + st * kChunk, kChunk);
      ptx::bulk_commit_group();
      if (j >= 1) {  // chunk j - 1's store is complete: its stage is free and its row may count it
        ptx::bulk_wait_group<1>();
        completed(j - 1);
      }
      if (j + kStages - 1 < total) ok = issue(j + kStages - 1);
    }
    ptx::bulk_wait_group<0>();
    if (ok && total > 0) {
      completed(total - 1);
      tma::fence_proxy_async_global();
      ptx::red_release_gpu_add(p.sync.flags.local() + pending_row, pending);
    }
  }
};

// Interleaved from the local shard (order_first = 0): every peer's links serve reads all the time.
struct AgRemoteOps : InterleavedOrder {
  __device__ static bool before_tile_loads(const Params& p, TileCoord t) {
    const int e = start_tile(p, index_of(p, t), kSlotShardReady);
    const int s = shard_of(p, t.m);
    if (s == p.rank) return true;
    const bool ok = wait_slot(p.sync, kSlotShardReady, 0, s, e, p.deadline, kWaitShard);
    tma::fence_proxy_async_global();
    return ok;
  }

  __device__ static void load_a(const Params& p, TileCoord t, int kb, uint32_t dst, uint32_t full_bar) {
    ptx::tensor_load_2d(dst, &p.tmap_peer[shard_of(p, t.m)], kb * Cfg::BK, t.m * Cfg::BM, full_bar);
  }
};

}  // namespace pk::fused
