#pragma once
// The grouped expert GEMM on the per-expert layout, and the same GEMM overlapped with the
// dispatch (Figure 12's first half of an MoE layer): this suite's Hopper GEMM
// (kernels/gemm/gemm_kernel.cuh) with three roles changed.
//   tile order  expert by expert, each expert's row tiles x column tiles (ep_types.cuh:
//               grouped_tile_of), from the layout in device memory (the tile count too): the
//               dispatch wrote it, so the host never learns the counts. Tile (expert j, row
//               tile i, column n) is TileCoord{m = base[j] / 128 + i, n = j * tiles_n + n}: the
//               rows of A (the receive buffer) and the rows of B (the El experts' H_expert x H
//               weights stacked) at the kernel's own coordinates; the stored column is n % H_expert.
//   loader      (overlapped) before a tile's first load, its row tile's flag must count every
//               row of the tile (the dispatch's receivers add one per row with red.release.gpu,
//               ht_dispatch.cuh); ld.acquire, then fence.proxy.async.global: TMA reads the rows.
//   communicator  (overlapped) blocks past the compute blocks run the dispatch's data step.
// The flags are zeroed by the count exchange of the same dispatch (ht_count.cuh), in stream
// order before this kernel. Rows of a partial last tile past the expert's count are whatever
// the buffer holds: the GEMM computes them and nothing reads them.
#include "kernels/ep/ht_dispatch.cuh"
#include "kernels/gemm/gemm_kernel.cuh"

namespace pk::ep {

using ExpertGemmCfg = gemm::Config128x256<4, 1>;
static_assert(ExpertGemmCfg::BM == kRowAlign && ExpertGemmCfg::BN == kTileCols, "expert regions start on the GEMM's row tiles");

struct ExpertGemmParams : gemm::GemmParams {
  EpLayout layout;
  int local_experts;
  int tiles_n;        // H_expert / BN
  int h_expert;
  int* tile_flags;    // nullptr: the rows are there already (dispatch, then GEMM)
  HtDispatchParams dispatch;  // the communicator blocks' data step (overlapped)
};

#ifdef __CUDACC__

struct ExpertGemmOps : gemm::GemmOps<ExpertGemmCfg> {
  using Params = ExpertGemmParams;
  using Cfg = ExpertGemmCfg;

  __device__ static int num_tiles(const Params& p) { return p.layout.tile_prefix[p.local_experts]; }
  __device__ static gemm::TileCoord tile(const Params& p, int idx) {
    const GroupedTile g = grouped_tile_of(idx, p.layout.tile_prefix, p.layout.count, p.local_experts);
    return gemm::TileCoord{p.layout.base[g.expert] / Cfg::BM + g.row_tile, g.expert * p.tiles_n + g.col_tile};
  }
  __device__ static bool before_tile_loads(const Params& p, gemm::TileCoord t) {
    if (!p.tile_flags) return true;
    const int j = t.n / p.tiles_n;
    const int rows = rows_in_tile(p.layout.count[j], t.m - p.layout.base[j] / Cfg::BM);
    const bool ok = wait_flag_geq_sys(p.tile_flags + t.m, rows, p.deadline, kWaitTile | static_cast<unsigned long long>(t.m) << 16);
    ptx::fence_proxy_async_global();
    return ok;
  }
  __device__ static void store_box(const Params& p, gemm::TileCoord, int row, int col, uint32_t src) {
    ptx::tensor_store_2d(&p.tmap_c, col % p.h_expert, row, src);
  }
  __device__ static void communicator(const Params& p, int block, int blocks, uint32_t) {
    ht_dispatch_block(p.dispatch, block, blocks);
  }
};

#endif  // __CUDACC__

}  // namespace pk::ep
