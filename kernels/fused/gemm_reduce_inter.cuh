#pragma once
// GEMM + reduce-scatter and GEMM + all-reduce, inter-SM overlap: compute blocks store their
// partial tiles locally (the GEMM's own TMA store) and raise a flag per unit (half tile) in
// the owner's memory; communicator blocks of the owner pull each unit from every GPU with TMA
// as soon as all its flags are up, sum in fp32 and store the result with TMA:
//   RS (reduce_to_all = 0): into the owner's output shard (a local store);
//   AR (reduce_to_all = 1): into every GPU's output (the owner pushes its reduced rows), the
//                           paper's Figure 21 with NVLink stores in place of the NVSwitch
//                           multicast (multicast is never run on the shared machines).
// Owners are row shards and the compute order is interleaved over them (fused_schedule.cuh),
// so every GPU produces owner o's j-th unit at about the same moment and every owner's
// communicator works from the start to the end of the kernel.
//
// Flags: unit slot (unit, src) in the owner's memory gets epoch e (st.release.sys) once the
// unit's stores are complete: after cp.async.bulk.wait_group and fence.proxy.async.global.
// The wait is deferred by one tile: when a consumer finishes tile t it waits only for the
// stores of its previous tile (all but the newest BN / EPI_COLS bulk groups), so the warpgroup
// never idles on its own stores; its last tile is waited for in full.
// Partial buffers alternate by epoch parity: GPU g's kernel e + 2 cannot start before every
// owner finished reading g's partials of launch e (an owner's launch e + 1 needs g's launch
// e + 1 flags, and g's launch e + 1 follows its launch e), so no reader ever sees a partial
// of a later launch and no handshake is needed for reuse.
// AR only: each communicator pipeline, after its last push, adds one to every GPU's done
// counter (its lane 0 issued every store: cp.async.bulk.wait_group 0 and
// fence.proxy.async.global, then red.release.sys) and waits for this
// GPU's counter to hold every communicator pipeline of every GPU, so the kernel ends with this
// GPU's output complete.
#include "fused_params.cuh"

namespace pk::fused {

struct ReduceInterOps : InterleavedOrder {
  static constexpr int kBoxesPerTile = Cfg::BN / Cfg::EPI_COLS;  // bulk groups a consumer commits per tile
  static constexpr int kRowBytes = Cfg::BN * 2;                  // one row of a unit
  static constexpr int kPipes = kReducePipes;
  static_assert(kPipes * 32 <= Cfg::THREADS, "a warp per pipeline");
  static constexpr int kStages = kReduceStages;

  __device__ static bool before_tile_loads(const Params& p, TileCoord t) {
    start_tile(p, index_of(p, t), -1);
    return true;
  }

  __device__ static void store_box(const Params& p, TileCoord, int row, int col, uint32_t src) {
    ptx::tensor_store_2d((block_epoch() & 1) ? &p.tmap_c_odd : &p.tmap_c, col, row, src);
  }

  __device__ static void signal_unit(const Params& p, TileCoord t, int half) {
    const int o = shard_of(p, t.m);
    ptx::st_release_sys(p.sync.flags.at[o] + unit_slot(t, half, tiles_n(p), p.rank, kMaxGpus), block_epoch());
  }

  __device__ static void after_tile_stored(const Params& p, TileCoord t, int consumer) {
    const int idx = index_of(p, t);
    if (idx >= p.compute_blocks) {  // the previous tile of this block: its stores are the older groups
      ptx::bulk_wait_group<kBoxesPerTile>();
      tma::fence_proxy_async_global();
      signal_unit(p, tile(p, idx - p.compute_blocks), consumer);
    }
    if (is_last_tile(p, idx)) {
      ptx::bulk_wait_group<0>();
      tma::fence_proxy_async_global();
      signal_unit(p, t, consumer);
    }
  }

  // ---- communicator ----
  // kPipes warps per block, each an independent pipeline over units block * kPipes + warp,
  // + blocks * kPipes, ... (the transfer study's shape: four TMA pipelines per SM pulled
  // ~50 GB/s; one block-wide pipeline measured ~9 GB/s per SM on the first H200x2 run). A
  // warp's lane 0 acquires a unit's flags and loads each piece of every GPU's partial with one
  // TMA box (piece_rows rows of 512 B, row-major) into its kStages-deep ring; the warp sums a
  // staged piece into source 0's slot in fp32, and lane 0 stores it with one box per
  // destination (RS: this GPU's shard; AR: every GPU).
  // Shared memory: kPipes rings of kStages x world boxes, then kPipes x kStages mbarriers.
  __device__ static void communicator(const Params& p, int block, int blocks, uint32_t smem) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const uint32_t ring_bytes = reduce_ring_bytes(p.world, p.piece_rows);
    if (threadIdx.x == 0) begin_block_epoch(p.sync);
    __syncthreads();
    const int e = block_epoch();
    if (warp < kPipes)
      pipeline(p, block * kPipes + warp, blocks * kPipes, e, smem + warp * ring_bytes,
               smem + kPipes * ring_bytes + warp * kStages * 8);
    __syncthreads();
    if (threadIdx.x == 0) end_block_epoch(p.sync, e);
  }

  __device__ static void pipeline(const Params& p, int pipe, int pipes, int e, uint32_t ring, uint32_t bars) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int w = p.world, rows = p.piece_rows;
    const uint32_t piece_bytes = static_cast<uint32_t>(rows) * kRowBytes;
    if (lane == 0) {
      for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(bars + 8 * s, 1);
      ptx::fence_mbarrier_init();
    }
    __syncwarp();
    const int tn = tiles_n(p);
    const int units = units_per_shard(tiles_m(p), tn, w);
    const int pieces_per_unit = Cfg::WG_M / rows;
    const int my_units = units > pipe ? (units - 1 - pipe) / pipes + 1 : 0;
    const int pieces = my_units * pieces_per_unit;
    const int parity_rows = (e & 1) ? p.m : 0;

    auto unit_of = [&](int piece) { return shard_unit(pipe + (piece / pieces_per_unit) * pipes, p.rank, tiles_m(p), tn, p.group_m, w); };
    auto first_row = [&](const Unit& u, int piece) {
      return u.tile.m * Cfg::BM + u.half * Cfg::WG_M + (piece % pieces_per_unit) * rows;
    };
    auto stage_at = [&](int s, int q) { return ring + static_cast<uint32_t>(s * w + q) * piece_bytes; };
    // Lane 0: acquire the unit's flags (first piece of a unit), then load the piece of every
    // GPU's partial into stage piece % kStages.
    auto issue = [&](int piece) -> bool {
      const Unit u = unit_of(piece);
      if (piece % pieces_per_unit == 0) {
        for (int q = 0; q < w; ++q)
          if (!wait_flag_geq_sys(p.sync.flags.local() + unit_slot(u.tile, u.half, tn, q, kMaxGpus), e, p.deadline,
                                 kWaitUnit | static_cast<unsigned long long>(q)))
            return false;
        tma::fence_proxy_async_global();  // generic acquire, then async-proxy reads of the data
      }
      const int s = piece % kStages;
      const uint32_t bar = bars + 8 * s;
      ptx::mbarrier_arrive_expect_tx(bar, piece_bytes * w);
      const int row = first_row(u, piece) + parity_rows, col = u.tile.n * Cfg::BN;
      for (int q = 0; q < w; ++q) ptx::tensor_load_2d(stage_at(s, q), &p.tmap_peer[q], col, row, bar);
      return true;
    };

    bool ok = true;
    if (lane == 0)
      for (int piece = 0; ok && piece < kStages - 1 && piece < pieces; ++piece) ok = issue(piece);
    ok = __shfl_sync(0xffffffffu, ok, 0);
    for (int piece = 0; ok && piece < pieces; ++piece) {
      const int s = piece % kStages;
      if (!mbarrier_wait(bars + 8 * s, (piece / kStages) & 1, p.deadline)) ok = false;
      if (__all_sync(0xffffffffu, ok)) {
        const int vecs = rows * (kRowBytes / 16);
        for (int v = lane; v < vecs; v += 32) {
          float acc[8] = {};
          for (int q = 0; q < w; ++q) {  // GPU order: one owner sums each element, so every GPU gets the same bits
            const uint32_t a = stage_at(s, q) + v * 16;
            uint4 x;
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w) : "r"(a) : "memory");
            add_vec<__nv_bfloat16>(acc, x);
          }
          const uint4 sum = Bf16::pack(acc);
          asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(stage_at(s, 0) + v * 16), "r"(sum.x), "r"(sum.y),
                       "r"(sum.z), "r"(sum.w)
                       : "memory");
        }
        ptx::fence_proxy_async_smem();  // generic writes of the sum, then the async proxy's store reads them
      } else {
        ok = false;
      }
      __syncwarp();
      if (lane == 0 && ok) {
        const Unit u = unit_of(piece);
        const int row = first_row(u, piece), col = u.tile.n * Cfg::BN;
        if (p.reduce_to_all) {
          for (int k = 1; k <= w; ++k) ptx::tensor_store_2d(&p.tmap_out[(p.rank + k) % w], col, row, stage_at(s, 0));
        } else {
          ptx::tensor_store_2d(&p.tmap_out[p.rank], col, row - p.rank * (p.m / w), stage_at(s, 0));
        }
        ptx::bulk_commit_group();
        // The next piece to load reuses the stage of piece - 1, whose stores are the older group.
        if (piece + kStages - 1 < pieces) {
          ptx::bulk_wait_group_read<1>();
          ok = issue(piece + kStages - 1);
        }
      }
      ok = __shfl_sync(0xffffffffu, ok, 0);
    }
    if (lane == 0) {
      ptx::bulk_wait_group<0>();  // every store performed before the block ends or signals
      tma::fence_proxy_async_global();
      if (p.reduce_to_all && ok) {
        for (int q = 0; q < w; ++q) ptx::red_release_sys_add(p.sync.done.at[q], 1);
        wait_flag_geq_sys(p.sync.done.local(), e * w * pipes, p.deadline, kWaitDone);
      }
    }
  }
};

}  // namespace pk::fused
