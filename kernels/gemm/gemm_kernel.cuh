#pragma once
// Persistent, warp-specialised Hopper bf16 GEMM: C[M,N] = A[M,K] * B[N,K]^T, fp32
// accumulation, bf16 output. A, B and C are row-major with the contiguous dimension last
// (A and B K-major: the "TN" layout both wgmma operands read from shared memory).
//
// Per block (one per SM: the shared memory it asks for leaves no room for a second):
//   warpgroup 0      producer: one elected thread issues TMA loads of A (BM x BK) and
//                    B (BN x BK) tiles into a STAGES-deep shared-memory ring; it keeps
//                    40 registers (setmaxnreg.dec) and gives the rest to the consumers.
//   warpgroups 1..2  consumers: each owns WG_M = 64 rows of the BM x BN tile and issues
//                    wgmma m64n256k16 on it (setmaxnreg.inc to 232 registers: 128 fp32
//                    accumulators each); the epilogue converts to bf16, writes 64 x 64
//                    sub-tiles into swizzled shared memory and stores them with TMA.
// The ring: full[s] (producer's expect_tx + TMA bytes) and empty[s] (one arrive per
// consumer warpgroup, per CTA of the cluster) mbarriers; every wait is bounded by
// Params::deadline and reports a timeout through pk::DeviceStatus instead of hanging.
//
// With CLUSTER_M = 2 two CTAs on neighbouring tile rows share each B tile: each loads half
// of it and multicasts it to both, halving B's L2->SM traffic. Consumers then release a
// stage in both CTAs (empty count = consumers x cluster size). On H100 this measured the
// same as CLUSTER_M = 1 (power, not L2 bandwidth, is the limit there; docs/decisions/0004-gemm-kernel.md), so
// CLUSTER_M = 1 is the base of the fused kernels: any SM count, no cluster lockstep.
//
// The kernel is a template over an Ops policy (see GemmOps below) with four roles, so a
// fused kernel writes only its communication:
//   tile order   Ops::num_tiles / Ops::tile: tile index -> (m, n) tile (scheduler)
//   loader       Ops::before_tile_loads (e.g. wait for a shard to arrive), Ops::load_a,
//                Ops::load_b (which tensor map, which coordinates)
//   storer       Ops::store_box (TMA store; or reduce-add into a peer's C),
//                Ops::after_tile_stored (e.g. wait for the bulk group, then signal a flag)
//   communicator Ops::communicator, run by blocks with blockIdx.x >= compute_blocks
#include <cuda.h>  // CUtensorMap (a plain struct: nothing from the driver library is linked)
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/ptx.cuh"
#include "kernels/spin_wait.cuh"
#include "kernels/status.cuh"
#include "kernels/gemm/schedule.cuh"

namespace pk::gemm {

// Block tile 128 x 256 x 64, two consumer warpgroups of 64 x 256. STAGES x 48 KiB of ring
// plus 32 KiB of epilogue buffers: 4 stages use 225 KiB of the SM's 227 KiB.
template <int kStages, int kClusterM>
struct Config128x256 {
  static constexpr int BM = 128, BN = 256, BK = 64;
  static constexpr int STAGES = kStages;
  static constexpr int CLUSTER_M = kClusterM;  // CTAs per cluster, along M, sharing B
  static constexpr int CONSUMERS = 2;
  static constexpr int WG_M = BM / CONSUMERS;
  static constexpr int THREADS = 128 * (1 + CONSUMERS);
  static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // 128*40 + 256*232 <= 64 K
  static constexpr int DEFAULT_GROUP_M = 16 / kClusterM;        // in cluster-tile rows: 2048 rows of A
  static constexpr int EPI_COLS = 64;                           // one 128-B swizzle box of bf16
  static constexpr int EPI_BUFS = 2;                            // per consumer: fill one while TMA reads the other

  static constexpr uint32_t A_BYTES = BM * BK * 2;
  static constexpr uint32_t B_BYTES = BN * BK * 2;
  static constexpr uint32_t STAGE_BYTES = A_BYTES + B_BYTES;  // what each CTA's full barrier expects
  static constexpr int B_LOAD_ROWS = BN / CLUSTER_M;         // rows of B this CTA loads (and multicasts)
  static constexpr uint32_t B_LOAD_BYTES = B_LOAD_ROWS * BK * 2;
  static constexpr uint32_t EPI_BYTES = WG_M * EPI_COLS * 2;

  // Offsets from a 1024-B aligned base (the 128-B swizzle repeats every 1024 B).
  static constexpr uint32_t OFF_A = 0;
  static constexpr uint32_t OFF_B = OFF_A + STAGES * A_BYTES;
  static constexpr uint32_t OFF_EPI = OFF_B + STAGES * B_BYTES;
  static constexpr uint32_t OFF_BAR = OFF_EPI + CONSUMERS * EPI_BUFS * EPI_BYTES;
  static constexpr uint32_t BAR_BYTES = 2 * STAGES * 8;
  static constexpr uint32_t SMEM_BYTES = OFF_BAR + BAR_BYTES + 1024;  // + slack to align the base

  static_assert(BK * 2 == 128, "one K block is one 128-B swizzle row");
  static_assert(WG_M == 64 && BN == 256, "consumers issue wgmma m64n256k16");
  static_assert(BN % CLUSTER_M == 0 && B_LOAD_ROWS <= 256, "TMA boxes are at most 256 rows");
  static_assert(B_LOAD_BYTES % 1024 == 0, "multicast halves of B stay swizzle-atom aligned");
  static_assert(SMEM_BYTES <= 227 * 1024, "fits in one SM's opt-in shared memory");
};

// What every GEMM kernel needs. A fused kernel's Params derives from it and adds its own
// (peer tensor maps, flags, rank).
struct GemmParams {
  CUtensorMap tmap_a;  // A: dims {K, M}, box {BK, BM}, 128-B swizzle
  CUtensorMap tmap_b;  // B: dims {K, N}, box {BK, BN / CLUSTER_M}, 128-B swizzle
  CUtensorMap tmap_c;  // C: dims {N, M}, box {EPI_COLS, WG_M}, 128-B swizzle
  int m, n, k;
  int compute_blocks;  // blocks [0, compute_blocks) compute tiles; later blocks run Ops::communicator
  int group_m;         // grouped tile order: band height in cluster-tile rows
  int* smid_out;       // optional: smid_out[blockIdx.x] = %smid (distinct-SM checks)
  Deadline deadline;   // bound and report target for every wait
};

// The default roles: a plain local GEMM. A fused kernel derives from GemmOps<Cfg> and hides
// the functions it changes (static member functions are looked up on the derived Ops).
template <class Cfg>
struct GemmOps {
  using Config = Cfg;
  using Params = GemmParams;

  // ---- tile order: units of cluster tiles (CLUSTER_M tile rows x one tile column) ----
  __device__ static int num_tiles(const Params& p) { return (p.m / (Cfg::BM * Cfg::CLUSTER_M)) * (p.n / Cfg::BN); }
  __device__ static TileCoord tile(const Params& p, int idx) {
    return grouped_tile(idx, p.m / (Cfg::BM * Cfg::CLUSTER_M), p.n / Cfg::BN, p.group_m);
  }

  // ---- loader (one producer thread) ----
  // Called once per output tile before its first load; false aborts the block (timeout).
  __device__ static bool before_tile_loads(const Params&, TileCoord /*tile*/) { return true; }
  __device__ static void load_a(const Params& p, TileCoord tile, int kb, uint32_t dst, uint32_t full_bar) {
    ptx::tensor_load_2d(dst, &p.tmap_a, kb * Cfg::BK, tile.m * Cfg::BM, full_bar);
  }
  // Loads this CTA's B_LOAD_ROWS rows of the B tile (all of it without a cluster) to `dst`;
  // in a cluster it multicasts them to the same offset of every CTA.
  __device__ static void load_b(const Params& p, TileCoord tile, int kb, uint32_t cta_rank, uint32_t dst,
                                uint32_t full_bar) {
    const int row = tile.n * Cfg::BN + static_cast<int>(cta_rank) * Cfg::B_LOAD_ROWS;
    if constexpr (Cfg::CLUSTER_M == 1)
      ptx::tensor_load_2d(dst, &p.tmap_b, kb * Cfg::BK, row, full_bar);
    else
      tma::tensor_load_2d_multicast(dst, &p.tmap_b, kb * Cfg::BK, row, full_bar, (1u << Cfg::CLUSTER_M) - 1);
  }

  // ---- storer (one thread per consumer warpgroup, after the sub-tile is in shared memory) ----
  // Stores the WG_M x EPI_COLS box at (row, col) of C; must join the caller's bulk group
  // (the kernel commits after it and waits before reusing the buffer).
  __device__ static void store_box(const Params& p, TileCoord /*tile*/, int row, int col, uint32_t src) {
    ptx::tensor_store_2d(&p.tmap_c, col, row, src);
  }
  // After a consumer issued all boxes of its half of `tile` (stores may still be in flight).
  __device__ static void after_tile_stored(const Params&, TileCoord /*tile*/, int /*consumer*/) {}

  // ---- communicator: whole blocks with blockIdx.x >= compute_blocks, all THREADS threads ----
  __device__ static void communicator(const Params&, int /*block*/, int /*blocks*/, uint32_t /*smem*/) {}
};

namespace detail {

template <class Cfg>
struct Smem {
  uint32_t base;  // 1024-B aligned shared address
  __device__ uint32_t a(int s) const { return base + Cfg::OFF_A + s * Cfg::A_BYTES; }
  __device__ uint32_t b(int s) const { return base + Cfg::OFF_B + s * Cfg::B_BYTES; }
  __device__ uint32_t epi(int consumer, int buf) const {
    return base + Cfg::OFF_EPI + (consumer * Cfg::EPI_BUFS + buf) * Cfg::EPI_BYTES;
  }
  __device__ uint32_t full(int s) const { return base + Cfg::OFF_BAR + s * 8; }
  __device__ uint32_t empty(int s) const { return base + Cfg::OFF_BAR + (Cfg::STAGES + s) * 8; }
};

// Ring position: the stage and the parity of its current phase.
template <int STAGES>
struct Ring {
  int stage = 0;
  uint32_t phase = 0;
  __device__ void next() {
    if (++stage == STAGES) {
      stage = 0;
      phase ^= 1;
    }
  }
};

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // .x (lower address) = lo
  return *reinterpret_cast<const uint32_t*>(&v);
}

// A consumer warpgroup is done reading stage `s`: tell every CTA whose producer may refill
// it (the multicast of B writes the stage in all CTAs of the cluster).
template <class Cfg>
__device__ __forceinline__ void release_stage(uint32_t empty_bar) {
  if constexpr (Cfg::CLUSTER_M == 1) {
    ptx::mbarrier_arrive(empty_bar);
  } else {
#pragma unroll
    for (int r = 0; r < Cfg::CLUSTER_M; ++r) tma::mbarrier_arrive_cluster(tma::map_to_rank(empty_bar, r));
  }
}

template <class Ops>
__device__ __forceinline__ void produce(const typename Ops::Params& p, const Smem<typename Ops::Config>& sm,
                                        uint32_t rank, int cluster, int clusters) {
  using Cfg = typename Ops::Config;
  const int tiles = Ops::num_tiles(p);
  const int kblocks = p.k / Cfg::BK;
  Ring<Cfg::STAGES> ring;
  for (int t = cluster; t < tiles; t += clusters) {
    const TileCoord ct = Ops::tile(p, t);
    const TileCoord tile{ct.m * Cfg::CLUSTER_M + static_cast<int>(rank), ct.n};
    if (!Ops::before_tile_loads(p, tile)) return;
    for (int kb = 0; kb < kblocks; ++kb) {
      // Parity phase^1: the first pass over the ring finds every stage free.
      if (!mbarrier_wait(sm.empty(ring.stage), ring.phase ^ 1, p.deadline)) return;
      const uint32_t full = sm.full(ring.stage);
      ptx::mbarrier_arrive_expect_tx(full, Cfg::STAGE_BYTES);
      Ops::load_a(p, tile, kb, sm.a(ring.stage), full);
      Ops::load_b(p, tile, kb, rank, sm.b(ring.stage) + rank * Cfg::B_LOAD_BYTES, full);
      ring.next();
    }
  }
}

template <class Ops>
__device__ __forceinline__ void consume(const typename Ops::Params& p, const Smem<typename Ops::Config>& sm,
                                        int consumer, uint32_t rank, int cluster, int clusters) {
  using Cfg = typename Ops::Config;
  const int tid = static_cast<int>(threadIdx.x) & 127;
  const int warp = tid >> 5, lane = tid & 31;
  // The thread that releases stages and issues (and later waits for) this warpgroup's TMA
  // stores: bulk groups are per thread, so it must always be the same one.
  const bool leader = warp == 0 && ptx::elect_one_sync();
  const uint32_t bar_id = 1 + consumer;  // named barrier of this warpgroup (0 is __syncthreads)
  const int tiles = Ops::num_tiles(p);
  const int kblocks = p.k / Cfg::BK;
  // Epilogue position of this thread in the 64 x 64 sub-tile: rows r0 and r0 + 8, 4 bytes
  // at (lane % 4) * 4 inside each 16-B chunk. The 128-B swizzle moves chunk j of row r to
  // chunk j ^ (r % 8): the 8 rows a warp writes at once hit 8 different chunks, so its 32
  // stores cover all 32 banks.
  const int r0 = warp * 16 + (lane >> 2);
  const uint32_t row_lo = static_cast<uint32_t>(r0) * 128 + (lane & 3) * 4;
  const uint32_t row_hi = row_lo + 8 * 128;
  const uint32_t swz = static_cast<uint32_t>(r0 & 7);

  float acc[128];
  Ring<Cfg::STAGES> ring;
  bool ok = true;
  for (int t = cluster; ok && t < tiles; t += clusters) {
    const TileCoord ct = Ops::tile(p, t);
    const TileCoord tile{ct.m * Cfg::CLUSTER_M + static_cast<int>(rank), ct.n};
    int prev = 0;
    for (int kb = 0; kb < kblocks; ++kb) {
      if (!mbarrier_wait(sm.full(ring.stage), ring.phase, p.deadline)) {
        ok = false;
        break;
      }
      wgmma::fence();
      const uint64_t da = wgmma::desc_sw128(sm.a(ring.stage) + consumer * Cfg::WG_M * 128);
      const uint64_t db = wgmma::desc_sw128(sm.b(ring.stage));
#pragma unroll
      for (int kk = 0; kk < Cfg::BK / 16; ++kk)
        wgmma::mma_m64n256k16_bf16(acc, da + kk * wgmma::kDescK16, db + kk * wgmma::kDescK16,
                                   (kb > 0 || kk > 0) ? 1u : 0u);
      wgmma::commit_group();
      // Keep this k-block's MMAs in flight; the previous one's are done with their stage.
      wgmma::wait_group<1>();
      if (kb > 0 && leader) release_stage<Cfg>(sm.empty(prev));
      prev = ring.stage;
      ring.next();
    }
    wgmma::wait_group<0>();
    if (!ok) break;
    if (leader) release_stage<Cfg>(sm.empty(prev));

    // Epilogue: 4 sub-tiles of 64 x 64, alternating between two buffers.
    const int row0 = tile.m * Cfg::BM + consumer * Cfg::WG_M;
#pragma unroll
    for (int q = 0; q < Cfg::BN / Cfg::EPI_COLS; ++q) {
      const uint32_t buf = sm.epi(consumer, q % Cfg::EPI_BUFS);
      // The store that last read this buffer (EPI_BUFS sub-tiles ago) has finished reading.
      if (leader) ptx::bulk_wait_group_read<Cfg::EPI_BUFS - 1>();
      ptx::bar_sync(bar_id, 128);
#pragma unroll
      for (int jj = 0; jj < Cfg::EPI_COLS / 8; ++jj) {
        const int j = q * (Cfg::EPI_COLS / 8) + jj;
        const uint32_t chunk = ((static_cast<uint32_t>(jj) ^ swz) << 4);
        tma::st_shared_b32(buf + row_lo + chunk, pack_bf16x2(acc[4 * j + 0], acc[4 * j + 1]));
        tma::st_shared_b32(buf + row_hi + chunk, pack_bf16x2(acc[4 * j + 2], acc[4 * j + 3]));
      }
      // Generic-proxy writes, read next by the async proxy (TMA): fence in every writer.
      ptx::fence_proxy_async_smem();
      ptx::bar_sync(bar_id, 128);
      if (leader) {
        Ops::store_box(p, tile, row0, tile.n * Cfg::BN + q * Cfg::EPI_COLS, buf);
        ptx::bulk_commit_group();
      }
    }
    if (leader) Ops::after_tile_stored(p, tile, consumer);
  }
  // Stores must have finished writing before the block's shared memory goes away.
  if (leader) ptx::bulk_wait_group<0>();
}

}  // namespace detail

template <class Ops>
__global__ void __launch_bounds__(Ops::Config::THREADS, 1) gemm_kernel(const __grid_constant__ typename Ops::Params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // wgmma and setmaxnreg exist on sm_90a alone. In another architecture's pass (sm_100a) the
  // kernel is a stub that reports a bad configuration: the host never launches it there
  // (Feature::wgmma in microbench/harness/capability.h makes those points skipped rows).
  if (threadIdx.x == 0 && blockIdx.x == 0) report_status(p.deadline.status, kStatusBadConfig, 0);
#else
  using Cfg = typename Ops::Config;
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const detail::Smem<Cfg> sm{(ptx::smem_addr(smem_raw) + 1023u) & ~1023u};

  if (threadIdx.x == 0 && p.smid_out != nullptr) p.smid_out[blockIdx.x] = static_cast<int>(ptx::smid());
  if (static_cast<int>(blockIdx.x) >= p.compute_blocks) {
    Ops::communicator(p, static_cast<int>(blockIdx.x) - p.compute_blocks,
                      static_cast<int>(gridDim.x) - p.compute_blocks, sm.base);
    return;
  }

  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::STAGES; ++s) {
      ptx::mbarrier_init(sm.full(s), 1);
      ptx::mbarrier_init(sm.empty(s), Cfg::CONSUMERS * Cfg::CLUSTER_M);
    }
    ptx::fence_mbarrier_init();  // visible to the async proxy and to the cluster's CTAs
  }
  // Every CTA's barriers exist before any peer multicasts into them or arrives on them.
  if constexpr (Cfg::CLUSTER_M > 1) {
    tma::cluster_arrive();
    tma::cluster_wait();
  } else {
    __syncthreads();
  }

  const uint32_t rank = Cfg::CLUSTER_M > 1 ? tma::cluster_ctarank() : 0u;
  const int cluster = static_cast<int>(blockIdx.x) / Cfg::CLUSTER_M;
  const int clusters = p.compute_blocks / Cfg::CLUSTER_M;
  const int wg = static_cast<int>(threadIdx.x) / 128;
  if (wg == 0) {
    wgmma::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (threadIdx.x < 32) {
      if (ptx::elect_one_sync()) detail::produce<Ops>(p, sm, rank, cluster, clusters);
      __syncwarp();
    }
  } else {
    wgmma::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    detail::consume<Ops>(p, sm, wg - 1, rank, cluster, clusters);
  }
  // No CTA leaves while a peer may still multicast into it or arrive on its barriers.
  if constexpr (Cfg::CLUSTER_M > 1) {
    tma::cluster_arrive();
    tma::cluster_wait();
  }
#endif
}

}  // namespace pk::gemm
