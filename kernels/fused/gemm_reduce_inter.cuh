#pragma once
// GEMM + reduce-scatter and GEMM + all-reduce, inter-SM overlap: compute blocks store their
// partial tiles locally (the GEMM's own TMA store) and raise a flag per unit (half tile) in
// the owner's memory; communicator blocks of the owner pull each unit from every GPU with
// bulk copies as soon as all its flags are up, sum in fp32 and store the result:
//   RS (reduce_to_all = 0): into the owner's output shard (a local store);
//   AR (reduce_to_all = 1): into every GPU's output (the owner pushes its reduced rows), the
//                           paper's Figure 21 with NVLink stores in place of the NVSwitch
//                           multicast (multicast is never run on the shared machines).
// Owners are row shards and the compute order is interleaved over them (fused_schedule.cuh),
// so every GPU produces owner o's j-th unit at about the same moment and every owner's
// communicator works from the start to the end of the kernel.
//
// Partials are tile-major (partial_box_row()): each unit (WG_M x BN) is one contiguous run of
// BN / EPI_COLS boxes of WG_M x EPI_COLS, each box row-major, so the GEMM's TMA store of a box
// writes 8 KiB in one piece and the communicator pulls any part of a unit with one 1-D bulk
// copy per GPU (the all-gather communicator's shape), instead of 2-D boxes of 512-B rows.
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
// AR only: each communicator block, once all its stores are complete, adds one to every GPU's
// done counter (red.release.sys after a block barrier) and waits for this GPU's counter to
// hold every communicator block of every GPU, so the kernel ends with this GPU's output
// complete.
#include "kernels/fused/fused_params.cuh"
#ifdef PKBENCH_COMM_TRACE
#include <cstdio>
#endif

namespace pk::fused {

#ifdef PKBENCH_COMM_TRACE
// Debug build only (-DPKBENCH_COMM_TRACE=E): clock64 stamps of pipeline 0 of communicator block 0
// in launch epoch E, per piece (producer past the empty wait; summer 0 past the full wait, past
// the sum's barrier, past its store and stage release) and per unit (producer before and after
// the flag acquire), printed by the block at its end. Same SM, so the stamps compare.
struct CommTrace {
  static constexpr int kPieces = 512, kUnits = 128;
  unsigned long long piece[kMaxGpus][kPieces][4];
  unsigned long long unit[kMaxGpus][kUnits][2];
};
__device__ CommTrace g_comm_trace;
#define PK_COMM_STAMP(on, arr, rank, i, slot, n) \
  do { if ((on) && (i) < (n)) g_comm_trace.arr[rank][i][slot] = clock64(); } while (0)
#else
#define PK_COMM_STAMP(on, arr, rank, i, slot, n) do {} while (0)
#endif

struct ReduceInterOps : InterleavedOrder {
  static constexpr int kBoxesPerTile = Cfg::BN / Cfg::EPI_COLS;  // bulk groups a consumer commits per tile
  static constexpr int kRowBytes = Cfg::BN * 2;                  // one row of a unit
  static constexpr int kPipes = kReducePipes;
  static constexpr int kSumWarps = kReduceSumWarps;
  static_assert(kPipes * (1 + kSumWarps) * 32 <= Cfg::THREADS, "a producer warp and kSumWarps summing warps per pipeline");

  __device__ static bool before_tile_loads(const Params& p, TileCoord t) {
    start_tile(p, index_of(p, t), -1);
    return true;
  }

  __device__ static void store_box(const Params& p, TileCoord t, int row, int col, uint32_t src) {
    if (reduce_in_place(p.world, p.reduce_to_all) && shard_of(p, t.m) == p.rank)
      ptx::tensor_store_2d(&p.tmap_peer[p.rank], col, row - p.rank * (p.m / p.world), src);
    else
      ptx::tensor_store_2d((block_epoch() & 1) ? &p.tmap_c_odd : &p.tmap_c, 0, partial_box_row(row, col, p.n), src);
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
  // kPipes pipelines per block; pipeline i is warp i (the producer: lane q acquires the
  // unit's flag from GPU q and pulls each piece of q's partial with one bulk copy into the
  // ring) and warps i + kPipes, i + 2 kPipes, ... (kSumWarps summers: each thread sums up to
  // kBatch vectors of 8 bf16 over the GPUs, GPU order, into GPU 0's slot of the stage;
  // then the pipeline's first summing thread stores the piece with one TMA box per
  // destination: RS this GPU's shard, AR every GPU's output). Full mbarriers (bulk-copy
  // transactions) and empty ones (every summer arrives, the storer once its stores read the
  // stage; in place the storer alone) decouple the producer from the summers: a producer
  // waiting on a flag or an empty stage never stalls a summer with data in hand. What each step
  // of this shape bought, and what did not help, is in 92a2f05:microbench/fused/NOTES.md (runs 5-7).
  // A piece is rows x BN elements of a unit: a contiguous part of one WG_M x EPI_COLS box
  // (rows * BN / EPI_COLS of its rows). Shared memory: kPipes rings of `stages` x world
  // pieces, then each pipeline's full and empty mbarriers.
  static constexpr int kSumThreads = kSumWarps * 32;
  static constexpr int kBatch = 4;                               // vectors a summer has in flight per GPU
  static constexpr int kBoxElems = Cfg::WG_M * Cfg::EPI_COLS;
  static_assert(kReduceMaxRows * Cfg::BN <= kBoxElems, "a piece lies within one box");

  // What a pipeline reduces: units pipe, pipe + pipes, ... of this GPU's shard, each in
  // pieces_per_unit pieces. The unit's coordinates are decoded once per unit (integer
  // divisions on the issue path of every piece measured as a per-piece cost).
  struct Walk {
    const Params& p;
    int pipe, pipes, rows, pieces_per_unit, units;
    int64_t base;  // the unit's first element in a (tile-major) partial
    int row, col;  // where the unit's first element belongs in C
    __device__ Walk(const Params& q, int pipe_, int pipes_, int rows_) : p(q), pipe(pipe_), pipes(pipes_), rows(rows_) {
      const int all = units_per_shard(tiles_m(p), tiles_n(p), p.world);
      pieces_per_unit = Cfg::WG_M / rows;
      units = all > pipe ? (all - 1 - pipe) / pipes + 1 : 0;
    }
    __device__ Unit at_unit(int i) {  // this pipeline's i-th unit
      const Unit u = shard_unit(pipe + i * pipes, p.rank, tiles_m(p), tiles_n(p), p.group_m, p.world);
      row = u.tile.m * Cfg::BM + u.half * Cfg::WG_M;
      col = u.tile.n * Cfg::BN;
      base = int64_t(partial_box_row(row, col, p.n)) * Cfg::EPI_COLS;
      return u;
    }
    // Piece j of the current unit: rows * BN elements from base + j * rows * BN, the box rows
    // j * rows * BN / EPI_COLS ... of box j * rows * BN / kBoxElems (a piece lies within a box).
    __device__ int64_t elem_offset(int j) const { return base + int64_t(j) * rows * Cfg::BN; }
    __device__ int row0(int j) const { return row + j * rows * Cfg::BN / Cfg::EPI_COLS % Cfg::WG_M; }
    __device__ int col0(int j) const { return col + j * rows * Cfg::BN / kBoxElems * Cfg::EPI_COLS; }
  };

  __device__ static void communicator(const Params& p, int block, int blocks, uint32_t smem) {
#ifdef PKBENCH_COMM_TRACE
    const long long entry = clock64();
#endif
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int pipe = warp % kPipes, role = warp / kPipes;  // role 0: producer, 1..kSumWarps: summers
    const int stage_pieces = reduce_stage_pieces(p.world, p.reduce_to_all);
    const ReduceRing rg = reduce_ring(stage_pieces);
    const uint32_t stage_bytes = reduce_stage_bytes(stage_pieces, rg.rows);
    const uint32_t ring = smem + static_cast<uint32_t>(pipe * rg.stages) * stage_bytes;
    const uint32_t full = smem + static_cast<uint32_t>(kPipes * rg.stages) * stage_bytes + pipe * rg.stages * 16;
    const uint32_t empty = full + rg.stages * 8;
    if (threadIdx.x == 0) begin_block_epoch(p.sync);
    // Who frees a stage: in place, the storer alone (no other thread touches the ring); else every
    // summing thread, each after its own last read or write of the stage (see sum()).
    const bool storer_only = reduce_in_place(p.world, p.reduce_to_all);
    if (role == 0 && lane == 0) {
      for (int s = 0; s < rg.stages; ++s) {
        ptx::mbarrier_init(full + 8 * s, 1);
        ptx::mbarrier_init(empty + 8 * s, storer_only ? 1 : kSumThreads);
      }
      ptx::fence_mbarrier_init();
    }
    __syncthreads();
    const int e = block_epoch();
    Walk k(p, block * kPipes + pipe, blocks * kPipes, rg.rows);
    bool ok = true;
    if (role == 0) {
      ok = produce(p, k, rg.stages, e, lane, ring, stage_bytes, full, empty);
    } else if (role <= kSumWarps) {
      ok = sum(p, k, rg.stages, (role - 1) * 32 + lane, pipe, ring, stage_bytes, full, empty);
    }
    // AR: every storer's stores are complete (wait_group 0 and fence.proxy.async.global, then
    // bar.sync orders them before thread 0's release, which is cumulative); one add per block
    // to every GPU's counter, then this GPU's output is complete once every communicator block
    // of every GPU has added.
    ok = __syncthreads_and(ok);
#ifdef PKBENCH_COMM_TRACE
    if (block == 0 && threadIdx.x == 0 && e == PKBENCH_COMM_TRACE) {
      const unsigned long long t0 = g_comm_trace.piece[p.rank][0][0];
      const int n = k.units * k.pieces_per_unit;
      // entry and end: the block's start and its barrier after the last piece, in cycles from piece 0's copy
      printf("CTH rank=%d world=%d blocks=%d units=%d pieces=%d stages=%d rows=%d entry=%lld end=%lld\n", p.rank, p.world,
             blocks, k.units, n, rg.stages, rg.rows, static_cast<long long>(entry - static_cast<long long>(t0)),
             static_cast<long long>(clock64() - static_cast<long long>(t0)));
      for (int i = 0; i < k.units && i < CommTrace::kUnits; ++i)
        printf("CTU %d %d %lld %lld\n", p.rank, i, (long long)(g_comm_trace.unit[p.rank][i][0] - t0),
               (long long)(g_comm_trace.unit[p.rank][i][1] - t0));
      for (int i = 0; i < n && i < CommTrace::kPieces; ++i)
        printf("CTP %d %d %lld %lld %lld %lld\n", p.rank, i, (long long)(g_comm_trace.piece[p.rank][i][0] - t0),
               (long long)(g_comm_trace.piece[p.rank][i][1] - t0), (long long)(g_comm_trace.piece[p.rank][i][2] - t0),
               (long long)(g_comm_trace.piece[p.rank][i][3] - t0));
    }
#endif
    if (threadIdx.x == 0) {
      if (p.reduce_to_all && ok) {
        ptx::fence_acq_rel_sys();
        for (int q = 0; q < p.world; ++q) ptx::red_release_sys_add(p.sync.done.at[q], 1);
        wait_flag_geq_sys(p.sync.done.local(), e * p.world * blocks, p.deadline, kWaitDone);
      }
      end_block_epoch(p.sync, e);
    }
  }

  // The producer warp; lane q < world serves GPU q: at a unit's first piece it acquires the
  // unit's flag from q (then fence.proxy.async.global: its own bulk copies read q's data),
  // and for each piece it waits for the stage to be summed and pulls q's piece. The flags
  // and copies of the GPUs go out together instead of one after another from one thread.
  __device__ static bool produce(const Params& p, Walk& k, int stages, int e, int lane, uint32_t ring,
                                 uint32_t stage_bytes, uint32_t full, uint32_t empty) {
    const int w = p.world;
    const bool mine = lane < w;
    const uint32_t piece_bytes = reduce_stage_bytes(1, k.rows);
    // In place, this GPU's own part is already in the output: its flag is still acquired (the
    // reduce-add must follow the compute blocks' stores), its piece is not copied, and the
    // peer's piece is the whole stage.
    const bool in_place = reduce_in_place(w, p.reduce_to_all);
    const bool copies = mine && !(in_place && lane == p.rank);
    const uint32_t slot = in_place ? 0 : lane * piece_bytes;
    const __nv_bfloat16* src = mine ? p.part.at[lane] + ((e & 1) ? int64_t(p.m) * p.n : 0) : nullptr;
    int piece = 0;
#ifdef PKBENCH_COMM_TRACE
    const bool tr = k.pipe == 0 && e == PKBENCH_COMM_TRACE && lane == 0;
#endif
    for (int i = 0; i < k.units; ++i) {
      const Unit u = k.at_unit(i);
      PK_COMM_STAMP(tr, unit, p.rank, i, 0, CommTrace::kUnits);
      bool ok = !mine || wait_flag_geq_sys(p.sync.flags.local() + unit_slot(u.tile, u.half, tiles_n(p), lane, kMaxGpus), e,
                                           p.deadline, kWaitUnit | static_cast<unsigned long long>(lane));
      if (mine) tma::fence_proxy_async_global();  // generic acquire, then async-proxy reads of the data
      if (!__all_sync(0xffffffffu, ok)) return false;
      PK_COMM_STAMP(tr, unit, p.rank, i, 1, CommTrace::kUnits);
      for (int j = 0; j < k.pieces_per_unit; ++j, ++piece) {
        const int s = piece % stages, round = piece / stages;
        ok = !mine || round == 0 || mbarrier_wait(empty + 8 * s, (round - 1) & 1, p.deadline);
        if (!__all_sync(0xffffffffu, ok)) return false;
        PK_COMM_STAMP(tr, piece, p.rank, piece, 0, CommTrace::kPieces);
        const uint32_t bar = full + 8 * s;
        if (lane == 0) ptx::mbarrier_arrive_expect_tx(bar, stage_bytes);
        if (copies) ptx::bulk_load(ring + static_cast<uint32_t>(s) * stage_bytes + slot, src + k.elem_offset(j),
                                 piece_bytes, bar);
      }
    }
    return true;
  }

  // In place (reduce_in_place): the pipeline's first summing thread adds each staged piece of the
  // peer into this GPU's output shard with one TMA reduce-add and frees the stage once it has
  // been read; the other summing warps have nothing to do.
  __device__ static bool add_in_place(const Params& p, Walk& k, int stages, uint32_t ring, uint32_t stage_bytes,
                                      uint32_t full, uint32_t empty) {
    const int shard_rows = p.rank * (p.m / p.world);
#ifdef PKBENCH_COMM_TRACE
    const bool tr = k.pipe == 0 && block_epoch() == PKBENCH_COMM_TRACE;
#endif
    const bool ok = each_staged_piece(p, k, stages, full, [&](int j, int s, int piece) {
      PK_COMM_STAMP(tr, piece, p.rank, piece, 1, CommTrace::kPieces);
      PK_COMM_STAMP(tr, piece, p.rank, piece, 2, CommTrace::kPieces);  // no sum in place
      // The producer acquired this unit's own flag (the compute blocks' stores into the
      // output) before the stage could fill; the reduce-add reads and writes it in the async proxy.
      tma::fence_proxy_async_global();
      ptx::tensor_reduce_add_2d(&p.tmap_out[p.rank], k.col0(j), k.row0(j) - shard_rows,
                                ring + static_cast<uint32_t>(s) * stage_bytes);
      ptx::bulk_commit_group();
      ptx::bulk_wait_group_read<0>();
      ptx::mbarrier_arrive(empty + 8 * s);
      PK_COMM_STAMP(tr, piece, p.rank, piece, 3, CommTrace::kPieces);
    });
    if (!ok) return false;
    stores_complete();
    return true;
  }

  // Walks this pipeline's pieces in order: waits for each stage to be full, then f(j, s, piece)
  // (piece j of the current unit, in stage s; the pipeline's piece count). False on a timeout.
  template <class F>
  __device__ static bool each_staged_piece(const Params& p, Walk& k, int stages, uint32_t full, F&& f) {
    int piece = 0;
    for (int i = 0; i < k.units; ++i) {
      k.at_unit(i);
      for (int j = 0; j < k.pieces_per_unit; ++j, ++piece) {
        const int s = piece % stages;
        if (!mbarrier_wait(full + 8 * s, (piece / stages) & 1, p.deadline)) return false;
        f(j, s, piece);
      }
    }
    return true;
  }

  // Every bulk store or reduce-add of this thread complete and visible before the block signals
  // (AR) or ends.
  __device__ static void stores_complete() {
    ptx::bulk_wait_group<0>();
    tma::fence_proxy_async_global();
  }

  // Three or more GPUs: fp32 sums in GPU order, kBatch vectors in flight per GPU, every GPU's
  // piece read before the first add; the sum goes back over GPU 0's vectors (each thread
  // rewrites only what it read).
  __device__ static void sum_fp32(uint32_t st, uint32_t piece_bytes, int vecs, int w, int t) {
    for (int v0 = t; v0 < vecs; v0 += kBatch * kSumThreads) {
      float acc[kBatch][8];
      for (int q = 0; q < w; ++q) {  // GPU order: one owner sums each element, so every GPU gets the same bits
        uint4 x[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b)
          if (v0 + b * kSumThreads < vecs) x[b] = ptx::ld_shared_v4(st + q * piece_bytes + (v0 + b * kSumThreads) * 16);
#pragma unroll
        for (int b = 0; b < kBatch; ++b)
          if (v0 + b * kSumThreads < vecs) {
            if (q == 0) Bf16::unpack(x[b], acc[b]);
            else add_vec<__nv_bfloat16>(acc[b], x[b]);
          }
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (v0 + b * kSumThreads < vecs) ptx::st_shared_v4(st + (v0 + b * kSumThreads) * 16, Bf16::pack(acc[b]));
    }
  }

  // Two GPUs: one correctly rounded bf16 add per element gives the bits the fp32 sum rounded
  // once gives (a + b of two bf16 is exact in fp32 unless their exponents differ by more than
  // 15, and then the smaller is below half a bf16 ulp of the larger either way), in 4 HADD2
  // per 16 B instead of ~28 unpacks, adds and packs: the per-phase trace (92a2f05:microbench/fused/NOTES.md, run 9) had
  // the fp32 sum at 70 % of a piece's time, bound by the summers' issue.
  __device__ static void sum_pair(uint32_t st, uint32_t piece_bytes, int vecs, int t) {
    for (int v0 = t; v0 < vecs; v0 += kBatch * kSumThreads) {
      uint4 a[kBatch], b[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i)
        if (v0 + i * kSumThreads < vecs) {
          a[i] = ptx::ld_shared_v4(st + (v0 + i * kSumThreads) * 16);
          b[i] = ptx::ld_shared_v4(st + piece_bytes + (v0 + i * kSumThreads) * 16);
        }
#pragma unroll
      for (int i = 0; i < kBatch; ++i)
        if (v0 + i * kSumThreads < vecs) ptx::st_shared_v4(st + (v0 + i * kSumThreads) * 16, add_bf16x8(a[i], b[i]));
    }
  }

  __device__ static uint4 add_bf16x8(uint4 a, uint4 b) {
    const auto add = [](uint32_t x, uint32_t y) {
      const __nv_bfloat162 r = __hadd2(*reinterpret_cast<const __nv_bfloat162*>(&x), *reinterpret_cast<const __nv_bfloat162*>(&y));
      return *reinterpret_cast<const uint32_t*>(&r);
    };
    return make_uint4(add(a.x, b.x), add(a.y, b.y), add(a.z, b.z), add(a.w, b.w));
  }

  // A summing thread (t of kSumThreads in its pipeline): vectors t, t + kSumThreads, ... of
  // each piece, kBatch at a time (sum_pair or sum_fp32). Thread 0 then stores
  // the piece (a box of rows * BN / EPI_COLS rows x EPI_COLS of C); the stage is free once every
  // summing thread has arrived on its empty mbarrier, thread 0 after those stores read it.
  __device__ static bool sum(const Params& p, Walk& k, int stages, int t, int pipe, uint32_t ring, uint32_t stage_bytes,
                             uint32_t full, uint32_t empty) {
    const int w = p.world;
    const uint32_t piece_bytes = stage_bytes / w;
    const int vecs = static_cast<int>(piece_bytes / 16);
    const int shard_rows = p.reduce_to_all ? 0 : p.rank * (p.m / w);  // RS: rows are relative to the shard
    if (reduce_in_place(w, p.reduce_to_all)) return t == 0 ? add_in_place(p, k, stages, ring, stage_bytes, full, empty) : true;
#ifdef PKBENCH_COMM_TRACE
    const bool tr = k.pipe == 0 && block_epoch() == PKBENCH_COMM_TRACE && t == 0;
#endif
    const bool ok = each_staged_piece(p, k, stages, full, [&](int j, int s, int piece) {
      PK_COMM_STAMP(tr, piece, p.rank, piece, 1, CommTrace::kPieces);
      const uint32_t st = ring + static_cast<uint32_t>(s) * stage_bytes;
      const int row0 = k.row0(j) - shard_rows, col0 = k.col0(j);
      if (w == 2) {
        sum_pair(st, piece_bytes, vecs, t);
      } else {
        sum_fp32(st, piece_bytes, vecs, w, t);
      }
      ptx::fence_proxy_async_smem();  // generic writes of the sum, then the TMA stores read them
      ptx::bar_sync(1 + pipe, kSumThreads);
      PK_COMM_STAMP(tr, piece, p.rank, piece, 2, CommTrace::kPieces);
      // Every summing thread releases the stage itself. The storer's release alone, after the
      // bar.sync, is enough for the memory model (bar.sync orders the others' accesses before it,
      // and its release is cumulative), but racecheck orders the producer's next bulk copy only
      // after the accesses of threads that arrived on the barrier it waited for: with one arrive it
      // reported every summer's read and write of the stage as a hazard (115974 in the gemm_ar
      // test); a stand-alone copy of this handoff is clean with every thread arriving, and flagged
      // with one arrival whether or not the summers write the stage or the producer fences.
      if (t != 0) ptx::mbarrier_arrive(empty + 8 * s);
      if (t == 0) {
        if (p.reduce_to_all) {
          for (int d = 1; d <= w; ++d) ptx::tensor_store_2d(&p.tmap_out[(p.rank + d) % w], col0, row0, st);
        } else {
          ptx::tensor_store_2d(&p.tmap_out[p.rank], col0, row0, st);
        }
        ptx::bulk_commit_group();
        // Free the stage as soon as this piece's stores have read it: the producer's next copy
        // into it then overlaps the next piece's sum (freeing it one piece later left the
        // summers waiting for data once the pair sum made them fast: 92a2f05:microbench/fused/NOTES.md, run 10).
        ptx::bulk_wait_group_read<0>();
        ptx::mbarrier_arrive(empty + 8 * s);
      }
      PK_COMM_STAMP(tr, piece, p.rank, piece, 3, CommTrace::kPieces);
    });
    if (!ok) return false;
    if (t == 0) stores_complete();
    return true;
  }
};

}  // namespace pk::fused
