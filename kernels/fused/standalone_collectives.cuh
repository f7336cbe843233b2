#pragma once
// "Our GEMM, then our collective": the non-fused reference of the suite's own kernels. After
// the GEMM (a separate launch, stream order), one kernel of sm_count blocks:
//   RS  out[shard rows of me] = sum over GPUs of their partial rows (pull, fp32 sums)
//   AR  out = sum over GPUs of their whole partial (one-shot pull: traffic-optimal on 2 GPUs)
//   AG  the peers' shards of A pulled into my A (before the GEMM)
// Block b of every GPU meets block b of every other GPU (kSlotEnter: "my input is ready");
// RS and AR also meet on the way out (kSlotLeave: "done reading your partial"), so the next
// GEMM may overwrite it. Slots get the block's epoch (st.release.sys after bar.sync, so the
// block's earlier stores are published with it; polled with ld.acquire.sys). This is the
// collective study's protocol in miniature, written here because that study is not in the
// tree yet; its one-shot / two-shot kernels can replace these once it lands.
#include "kernels/fused/fused_sync.cuh"

namespace pk::fused {

enum CollKind : int { kCollRs = 0, kCollAr = 1, kCollAg = 2 };

struct StandaloneParams {
  FusedSync sync;
  PeerTable<__nv_bfloat16> src;  // RS/AR: every GPU's partial C; AG: every GPU's A
  PeerTable<__nv_bfloat16> dst;  // RS/AR: every GPU's output; AG: every GPU's A
  int64_t row_elems;             // N (RS/AR) or K (AG)
  int rows;                      // M
  int kind;
  Deadline deadline;
};

struct StandaloneConfig {
  static constexpr int kThreads = 512;
  static constexpr int kUnroll = 4;  // independent 16-B loads per thread in flight (per source)
};

#ifdef __CUDACC__
namespace detail {
// Every block b of this GPU and block b of every peer: signal, then wait.
__device__ __forceinline__ bool exchange(const StandaloneParams& p, int kind, int e, unsigned long long tag) {
  __syncthreads();
  const int q = static_cast<int>(threadIdx.x), me = p.sync.slots.self;
  bool ok = true;
  if (q < p.sync.slots.size && q != me) {
    signal_slot(p.sync, kind, blockIdx.x, q, e);
    ok = wait_slot(p.sync, kind, blockIdx.x, q, e, p.deadline, tag);
  }
  return __syncthreads_and(ok) != 0;
}
}  // namespace detail

// x[u] = src[v + u * stride] for each u < unroll whose index is below n: every load issued
// before any is used. A macro, not a function: the inlined function gave the same
// instructions with the kernel's PTX registers renumbered, and this file's PTX is kept
// identical to the version checked on the GPU.
#define PK_LOAD_STRIDED(x, unroll, src, v, stride, n) \
  _Pragma("unroll") for (int u = 0; u < (unroll); ++u) if ((v) + u * (stride) < (n)) x[u] = ptx::ld_global_v4((src) + (v) + u * (stride))

static __global__ void __launch_bounds__(StandaloneConfig::kThreads) standalone_collective_kernel(const __grid_constant__ StandaloneParams p) {
  constexpr int U = StandaloneConfig::kUnroll;
  __shared__ int epoch;
  if (threadIdx.x == 0) epoch = p.sync.epochs[blockIdx.x] + 1;
  __syncthreads();
  const int e = epoch;
  const int w = p.sync.slots.size, me = p.sync.slots.self;
  if (!detail::exchange(p, kSlotEnter, e, kWaitEnter)) return;
  const int64_t shard_vecs = int64_t(p.rows / w) * p.row_elems / 8;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p.kind == kCollAg) {
    for (int k = 1; k < w; ++k) {
      const int s = (me + k) % w;
      const uint4* src = reinterpret_cast<const uint4*>(p.src.at[s]) + s * shard_vecs;
      uint4* dst = reinterpret_cast<uint4*>(p.dst.local()) + s * shard_vecs;
      for (int64_t v = first; v < shard_vecs; v += U * stride) {
        uint4 x[U];
        PK_LOAD_STRIDED(x, U, src, v, stride, shard_vecs);
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (v + u * stride < shard_vecs) ptx::st_global_v4(dst + v + u * stride, x[u]);
      }
    }
  } else {
    const int64_t lo = p.kind == kCollRs ? me * shard_vecs : 0;
    const int64_t n = p.kind == kCollRs ? shard_vecs : shard_vecs * w;
    uint4* dst = reinterpret_cast<uint4*>(p.dst.local()) + (p.kind == kCollRs ? 0 : lo);
    for (int64_t v = first; v < n; v += U * stride) {
      float acc[U][8] = {};
      for (int k = 0; k < w; ++k) {  // rotated: GPUs start on different peers
        const uint4* src = reinterpret_cast<const uint4*>(p.src.at[(me + k) % w]) + lo;
        uint4 x[U];
        PK_LOAD_STRIDED(x, U, src, v, stride, n);
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (v + u * stride < n) add_vec<__nv_bfloat16>(acc[u], x[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + u * stride < n) ptx::st_global_v4(dst + v + u * stride, Bf16::pack(acc[u]));
    }
    if (!detail::exchange(p, kSlotLeave, e, kWaitLeave)) return;
  }
  if (threadIdx.x == 0) p.sync.epochs[blockIdx.x] = e;
}
#undef PK_LOAD_STRIDED
#endif

}  // namespace pk::fused
