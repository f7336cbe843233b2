#pragma once
// All-gather + GEMM: A (M x K) is split into row shards, GPU g holding shard g in rows
// [g * M / world, ...) of its own A buffer; every GPU computes C = A_gathered * B_g^T.
//
// AgPullOps, inter-SM (comm_blocks > 0): communicator blocks pull the peers' shards into the
// local A with TMA (1-D bulk copies staged through shared memory, one thread per block
// driving a ring), a tile row (BM rows x K, contiguous) at a time, in the order the compute
// blocks consume them: shard rank+1, rank+2, ...; after a row's stores complete
// (wait_group 0 + fence.proxy.async.global) its flag gets epoch e (st.release.gpu: only this
// GPU reads it). Compute blocks take tiles in shard-arrival order (local shard first) and a
// producer waits for its tile row's flag (acquire, then fence.proxy.async.global: the data is
// read by TMA) before loading it.
// The same ops with comm_blocks = 0 run the copy-engine schedule: the host queues
// cudaMemcpyAsync of each chunk of rows_per_flag tile rows on a second stream followed by
// cuStreamWriteValue32(flag, e) (a write with a memory barrier); the kernel is unchanged.
//
// AgRemoteOps, intra-SM: no copy at all; the loader reads remote A tiles directly with TMA
// through a tensor map per GPU built over that GPU's A. A tile of A is re-read once per tile
// column of C and remote data is cached only in the owner's L2 ("far-side" caching), so this
// moves tiles_n x the shard over NVLink: the paper's remote-cache-reuse argument, measured.
//
// Both: a peer's shard is read only after it said "ready for epoch e" (kSlotShardReady, sent
// by its block 0's producer when its kernel starts). Local rows the peers read are never
// written by a fused launch, so nothing guards their reuse.
#include "fused_params.cuh"

namespace pk::fused {

struct AgPullOps : gemm::GemmOps<Cfg> {
  using Params = FusedParams;
  static constexpr uint32_t kChunk = 16 * 1024;  // bytes per bulk copy (a tile row of A is 256 * K bytes)
  static constexpr int kStages = 12;              // 192 KiB of staging per communicator block
  static_assert(kStages * kChunk + 8 * kStages <= Cfg::SMEM_BYTES - 1024, "staging fits the block's shared memory");
  static_assert(Cfg::BM * Cfg::BK * 2 % kChunk == 0, "a tile row is whole chunks");

  __device__ static int num_tiles(const Params& p) { return fused::num_tiles(p); }
  __device__ static TileCoord tile(const Params& p, int i) {
    return gemm::shard_arrival_tile(i, tiles_m(p), tiles_n(p), p.group_m, p.world, p.rank);
  }
  __device__ static int index_of(const Params& p, TileCoord t) {
    return shard_arrival_index(t, tiles_m(p), tiles_n(p), p.group_m, p.world, p.rank);
  }

  __device__ static bool before_tile_loads(const Params& p, TileCoord t) {
    const int e = start_tile(p, index_of(p, t), kSlotShardReady);
    if (shard_of(p, t.m) == p.rank) return true;
    const bool ok = wait_flag_geq_sys(p.sync.flags.local() + t.m / p.rows_per_flag, e, p.deadline,
                                      kWaitRow | static_cast<unsigned long long>(t.m));
    tma::fence_proxy_async_global();  // rows written through the async proxy (or the copy engine), read by TMA
    return ok;
  }

  // Thread 0 of each communicator block copies tile rows block, block + blocks, ... of the
  // list (shard rank+1's rows, then rank+2's, ...) through a kStages-deep ring of kChunk
  // stages: a stage is refilled once the store that read it has finished reading it.
  __device__ static void communicator(const Params& p, int block, int blocks, uint32_t smem) {
    if (threadIdx.x != 0) return;
    const int e = begin_block_epoch(p.sync);
    const uint32_t bars = smem + kStages * kChunk;
    for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(bars + 8 * s, 1);
    ptx::fence_mbarrier_init();

    const int list = ag_copy_rows(tiles_m(p), p.world);
    const int64_t my_rows = list > block ? (list - 1 - block) / blocks + 1 : 0;
    const int64_t row_elems = int64_t(Cfg::BM) * p.k;
    const int64_t per_row = row_elems * 2 / kChunk;
    const int64_t chunk_elems = kChunk / 2;
    const int64_t total = my_rows * per_row;
    auto row_of = [&](int64_t jr) { return ag_copy_row(block + static_cast<int>(jr) * blocks, p.rank, tiles_m(p), p.world); };
    int ready = -1;  // the shard whose ready slot has been acquired
    auto issue = [&](int64_t J) -> bool {
      const int tm = row_of(J / per_row);
      const int s = shard_of(p, tm);
      if (s != ready) {
        if (!wait_slot(p.sync, kSlotShardReady, 0, s, e, p.deadline, kWaitShard)) return false;
        tma::fence_proxy_async_global();
        ready = s;
      }
      const uint32_t st = static_cast<uint32_t>(J % kStages);
      ptx::mbarrier_arrive_expect_tx(bars + 8 * st, kChunk);
      ptx::bulk_load(smem + st * kChunk, p.a.at[s] + tm * row_elems + (J % per_row) * chunk_elems, kChunk, bars + 8 * st);
      return true;
    };

    bool ok = true;
    for (int64_t J = 0; ok && J < total && J < kStages - 1; ++J) ok = issue(J);
    for (int64_t J = 0; ok && J < total; ++J) {
      const uint32_t st = static_cast<uint32_t>(J % kStages);
      if (!mbarrier_wait(bars + 8 * st, static_cast<uint32_t>((J / kStages) & 1), p.deadline)) {
        ok = false;
        break;
      }
      const int tm = row_of(J / per_row);
      ptx::bulk_store(p.a.local() + tm * row_elems + (J % per_row) * chunk_elems, smem + st * kChunk, kChunk);
      ptx::bulk_commit_group();
      if (J % per_row == per_row - 1) {  // the row is complete once its stores are
        ptx::bulk_wait_group<0>();
        tma::fence_proxy_async_global();
        ptx::st_release_gpu(p.sync.flags.local() + tm / p.rows_per_flag, e);
      }
      if (J + kStages - 1 < total) {
        ptx::bulk_wait_group_read<1>();
        ok = issue(J + kStages - 1);
      }
    }
    ptx::bulk_wait_group<0>();
    end_block_epoch(p.sync, e);
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
