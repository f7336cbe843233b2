#pragma once
// All-reduce, two-shot push with TMA for large messages: the same two phases and signals
// as allreduce_two_shot.cuh (push), but the bytes move as bulk copies through shared memory
// (cp.async.bulk), so one issuing thread per block keeps many NVLink writes in flight:
//   A: one elected thread runs the transfer study's bulk pipeline (transfer_tma.cuh) over
//      every peer's tiles: global -> smem (mbarrier) -> the peer's scratch slot;
//   B: the block sums kSumTiles tiles of its chunk (16-B loads, fp32) into shared memory,
//      fences them for the async proxy, and the elected thread bulk-stores them to its own
//      output and to every peer's (two smem groups, so the sum of one group overlaps the
//      stores of the previous one).
// TMA writes to a peer are complete for the issuing thread after cp.async.bulk.wait_group
// 0; fence.proxy.async.global then orders them before the generic-proxy release of the
// phase signal. Tile tails (a chunk not a multiple of the tile) go through registers.
#include "kernels/transfer_tma.cuh"
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

struct TmaConfig {
  static constexpr int kThreads = 256;
  static constexpr uint32_t kTileBytes = 8192;
  static constexpr uint32_t kDepth = 4;  // phase A pipeline stages
  // Phase B sums kSumTiles adjacent tiles per step (two groups of them in the kDepth stages)
  // with kCopyUnroll 16-B vectors per thread loaded before use: one 8 KiB tile per step was 2
  // vectors per thread between two block barriers, latency-bound at 16 MiB (Nsight Compute,
  // results/h100x1/collectives/virtual/ncu: barrier and long_scoreboard stalls).
  static constexpr uint32_t kSumTiles = 2;
  static_assert(2 * kSumTiles <= kDepth, "phase B double-buffers groups of kSumTiles stages");
  static constexpr uint64_t kBytesPerBlock = 32 * 1024;  // 4 tiles
  static constexpr uint64_t smem_bytes() {
    return transfer::tma_smem_bytes(1, kDepth, kTileBytes);
  }
};

// Phase A's message space: the tiles of my slice of every peer's chunk, peer after peer.
struct ScatterAddressing {
  const char* src[kMaxGpus];
  char* dst[kMaxGpus];
  uint64_t first[kMaxGpus + 1];
  int parts;
  uint32_t msg_bytes;
  __device__ int part(uint64_t m) const {
    int k = 0;
    while (k + 1 < parts && m >= first[k + 1]) ++k;
    return k;
  }
  __device__ void load(uint32_t smem, uint32_t bar, uint64_t m) const {
    const int k = part(m);
    ptx::bulk_load(smem, src[k] + (m - first[k]) * msg_bytes, msg_bytes, bar);
  }
  __device__ void store(uint64_t m, uint32_t smem) const {
    const int k = part(m);
    ptx::bulk_store(dst[k] + (m - first[k]) * msg_bytes, smem, msg_bytes);
  }
};

template <class T>
__global__ void __launch_bounds__(TmaConfig::kThreads)
    all_reduce_two_shot_tma_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec;
  constexpr uint32_t kTile = TmaConfig::kTileBytes;
  constexpr uint64_t kTileElems = kTile / sizeof(T);
  extern __shared__ unsigned char smem_raw[];
  const int n = p.in.size, self = p.in.self;
  const uint32_t base = (ptx::smem_addr(smem_raw) + 127u) & ~127u;
  const uint32_t bars = base, stages = base + transfer::tma_barrier_bytes(1, TmaConfig::kDepth);
  unsigned char* stage_ptr = smem_raw + (stages - ptx::smem_addr(smem_raw));
  const bool leader = threadIdx.x < 32 && ptx::elect_one_sync();
  const int e = begin_epoch(p.sync);
  const T* in = p.in.local();
  if (leader) {
    for (uint32_t s = 0; s < TmaConfig::kDepth; ++s) ptx::mbarrier_init(bars + 8u * s, 1);
    ptx::fence_mbarrier_init();
  }
  __syncthreads();

  // A: whole tiles by TMA, tails by registers.
  bool ok = true;
  if (leader) {
    ScatterAddressing a{};
    a.parts = n - 1;
    a.msg_bytes = kTile;
    uint64_t m = 0;
    for (int k = 1; k < n; ++k) {
      const int r = (self + k) % n;
      const Chunk c = chunk_of(p.count, n, r, V);
      const Slice s = block_slice((c.hi - c.lo) / kTileElems, blockIdx.x, gridDim.x);
      a.src[k - 1] = reinterpret_cast<const char*>(in + c.lo) + s.lo * kTile;
      a.dst[k - 1] = reinterpret_cast<char*>(p.scratch.at[r] + static_cast<uint64_t>(self) * p.slot_elems) + s.lo * kTile;
      a.first[k - 1] = m;
      m += s.hi - s.lo;
    }
    a.first[n - 1] = m;
    transfer::TmaPipelineParams tp{m, kTile, kTile, TmaConfig::kDepth, p.sync.deadline};
    ok = transfer::tma_pipeline(a, tp, 0, 1, bars, stages);  // ends with bulk_wait_group 0
    ptx::fence_proxy_async_global();
  }
  if (blockIdx.x == gridDim.x - 1)
    for (int k = 1; k < n; ++k) {
      const int r = (self + k) % n;
      const Chunk c = chunk_of(p.count, n, r, V);
      T* dst = p.scratch.at[r] + static_cast<uint64_t>(self) * p.slot_elems;
      for (uint64_t i = c.lo + (c.hi - c.lo) / kTileElems * kTileElems + threadIdx.x; i < c.hi; i += blockDim.x)
        dst[i - c.lo] = in[i];
    }
  if (!__syncthreads_and(ok)) return;
  if (!exchange(p.sync, kPhaseA, e)) return;

  // B: reduce tile by tile into shared memory; the leader bulk-stores each to every rank.
  const Chunk c = chunk_of(p.count, n, self, V);
  const T* slots = p.scratch.local();
  const uint64_t tiles = (c.hi - c.lo) / kTileElems;
  const Slice s = block_slice(tiles, blockIdx.x, gridDim.x);
  constexpr uint32_t G = TmaConfig::kSumTiles;
  for (uint64_t t = s.lo, step = 0; t < s.hi; t += G, ++step) {
    const uint32_t g = static_cast<uint32_t>(s.hi - t < G ? s.hi - t : G);  // tiles this step
    const uint32_t st = static_cast<uint32_t>(step & 1);
    if (step >= 2 && leader) ptx::bulk_wait_group_read<1>();  // step-2's group has left stages st
    __syncthreads();
    const uint64_t off = c.lo + t * kTileElems;
    uint4* sm = reinterpret_cast<uint4*>(stage_ptr + st * G * kTile);
    auto sum_to_smem = [&](uint32_t v, auto u) {
      constexpr int U = decltype(u)::value;
      float acc[U][V];
      sum_slot_vectors<T, U>(acc, p, in, slots, off + uint64_t(v) * V, (off - c.lo) + uint64_t(v) * V,
                             uint64_t(blockDim.x) * V, n, self);
#pragma unroll
      for (int j = 0; j < U; ++j) sm[v + j * blockDim.x] = Elem<T>::pack(acc[j]);
    };
    for_vectors<kCopyUnroll>(threadIdx.x, g * (kTile / 16), blockDim.x, sum_to_smem);
    ptx::fence_proxy_async_smem();  // generic smem writes -> async-proxy (bulk store) reads
    __syncthreads();
    if (leader) {
      for (int k = 0; k < n; ++k) ptx::bulk_store(p.out.at[(self + k) % n] + off, stages + st * G * kTile, g * kTile);
      ptx::bulk_commit_group();
    }
  }
  if (leader) {
    ptx::bulk_wait_group<0>();
    ptx::fence_proxy_async_global();
  }
  reduce_chunk_tail<T>(p, in, slots, c, c.lo + tiles * kTileElems, n, self);
  if (!exchange(p.sync, kPhaseB, e)) return;
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
