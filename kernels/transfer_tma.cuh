#pragma once
// TMA transfers: a message is staged through shared memory, global -> smem by a bulk load
// that completes on an mbarrier, then smem -> global by a bulk store. Push loads local and
// stores to the peer; pull loads from the peer and stores locally. One elected thread per
// warp runs its own `depth`-stage pipeline, so a block of W warps keeps W pipelines busy.
#include <cuda.h>  // CUtensorMap (type only; no driver library needed to compile)

#include <cstdint>

#include "kernels/ptx.cuh"
#include "kernels/spin_wait.cuh"

namespace pk::transfer {

struct TmaPipelineParams {
  uint64_t n_msgs;        // messages in one pass over the op's region
  uint32_t msg_bytes;     // payload of one message (= one stage)
  uint32_t stage_stride;  // bytes between stages: msg_bytes rounded up to 128 (tensor copies need 128-B smem)
  uint32_t depth;         // stages per issuing warp
  Deadline deadline;
};

// Shared memory for `warps` pipelines of `depth` stages: barriers first, then stages.
__host__ __device__ constexpr uint32_t tma_barrier_bytes(uint32_t warps, uint32_t depth) {
  return (warps * depth * 8u + 127u) / 128u * 128u;
}
__host__ __device__ constexpr uint64_t tma_smem_bytes(uint32_t warps, uint32_t depth, uint32_t stage_stride) {
  return 128u /* alignment slack */ + tma_barrier_bytes(warps, depth) + uint64_t(warps) * depth * stage_stride;
}

// Message k is bytes [k*m, (k+1)*m) of the region.
struct BulkAddressing {
  const char* src;
  char* dst;
  uint32_t msg_bytes;
  __device__ void load(uint32_t smem, uint32_t bar, uint64_t k) const {
    ptx::bulk_load(smem, src + k * msg_bytes, msg_bytes, bar);
  }
  __device__ void store(uint64_t k, uint32_t smem) const { ptx::bulk_store(dst + k * msg_bytes, smem, msg_bytes); }
};

// Message k is tile k (row-major over tiles) of a 2-D tensor. The maps cover whole
// buffers; src_row0/dst_row0 select the operation's region in each.
struct TileAddressing {
  CUtensorMap src_map;
  CUtensorMap dst_map;
  uint32_t tiles_x;
  uint32_t box_cols;  // elements
  uint32_t box_rows;
  uint32_t src_row0;
  uint32_t dst_row0;
  __device__ int32_t x_of(uint64_t k) const { return static_cast<int32_t>((k % tiles_x) * box_cols); }
  __device__ int32_t y_of(uint64_t k) const { return static_cast<int32_t>((k / tiles_x) * box_rows); }
  __device__ void load(uint32_t smem, uint32_t bar, uint64_t k) const {
    ptx::tensor_load_2d(smem, &src_map, x_of(k), static_cast<int32_t>(src_row0) + y_of(k), bar);
  }
  __device__ void store(uint64_t k, uint32_t smem) const {
    ptx::tensor_store_2d(&dst_map, x_of(k), static_cast<int32_t>(dst_row0) + y_of(k), smem);
  }
};

struct NoStoreHook {
  __device__ void operator()(uint64_t) const {}
};

// One thread's pipeline over messages first, first+step, ... Before a stage is refilled the
// store that last read it must have finished reading (wait_group.read); with depth >= 2 the
// refill trails one store behind, so a load and a store are always in flight together.
// after_store(j) runs once the store of the j-th message (0-based, this thread's) is
// committed as its own bulk group: a caller may wait for older groups there and signal.
template <class Addr, class AfterStore = NoStoreHook>
__device__ __forceinline__ bool tma_pipeline(const Addr& a, const TmaPipelineParams& p, uint64_t first, uint64_t step,
                                             uint32_t bars, uint32_t stages, AfterStore after_store = {}) {
  if (first >= p.n_msgs) return true;
  const uint64_t n = (p.n_msgs - first + step - 1) / step;
  const uint32_t depth = p.depth;
  auto msg = [&](uint64_t j) { return first + j * step; };
  auto bar = [&](uint32_t s) { return bars + 8u * s; };
  auto stage = [&](uint32_t s) { return stages + s * p.stage_stride; };
  auto issue_load = [&](uint64_t j) {
    const uint32_t s = static_cast<uint32_t>(j % depth);
    ptx::mbarrier_arrive_expect_tx(bar(s), p.msg_bytes);
    a.load(stage(s), bar(s), msg(j));
  };
  for (uint64_t j = 0; j < depth && j < n; ++j) issue_load(j);
  const uint64_t lag = depth > 1 ? 1 : 0;
  for (uint64_t j = 0; j < n; ++j) {
    const uint32_t s = static_cast<uint32_t>(j % depth);
    if (!mbarrier_wait(bar(s), static_cast<uint32_t>((j / depth) & 1), p.deadline)) {
      ptx::bulk_wait_group<0>();
      return false;
    }
    a.store(msg(j), stage(s));
    ptx::bulk_commit_group();
    after_store(j);
    if (j >= lag && j - lag + depth < n) {
      if (lag) ptx::bulk_wait_group_read<1>();
      else ptx::bulk_wait_group_read<0>();
      issue_load(j - lag + depth);
    }
  }
  // Stores must be complete (not just read) before the CTA's shared memory goes away.
  ptx::bulk_wait_group<0>();
  return true;
}

template <class Addr>
__global__ void tma_copy_kernel(const __grid_constant__ Addr a, const TmaPipelineParams p) {
  extern __shared__ unsigned char smem_raw[];
  const uint32_t base = (ptx::smem_addr(smem_raw) + 127u) & ~127u;
  const uint32_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const uint32_t bars = base + warp * p.depth * 8u;
  const uint32_t stages = base + tma_barrier_bytes(warps, p.depth) + warp * p.depth * p.stage_stride;
  if (ptx::elect_one_sync()) {
    for (uint32_t s = 0; s < p.depth; ++s) ptx::mbarrier_init(bars + 8u * s, 1);
    ptx::fence_mbarrier_init();
    tma_pipeline(a, p, uint64_t(blockIdx.x) * warps + warp, uint64_t(gridDim.x) * warps, bars, stages);
  }
  __syncwarp();
}

}  // namespace pk::transfer
