#pragma once
// Broadcast, pull: every rank copies root 0's input into its own output through the peer
// table (the root copies its own); one step, read traffic only.
//   enter: the root's input is ready (its launch has begun, and the input was written before
//          it in stream order)
//   copy:  16-B loads from the root's input, stores to the local output (block slices); the
//          last block copies the odd elements after the last whole vector
//   leave: every rank has finished reading the root's input, so the root may overwrite it
//          once the kernel ends
//
// Broadcast, LL (small messages; NCCL's LL ring is the one to beat there): the root writes its
// buffer as LL lines (16 B: two {4 B data, 4 B flag = epoch} words, segments_ll.cuh) straight
// into every peer's landing lines (parity e & 1) and copies its own; a peer polls its lines
// and unpacks them into its output. One NVLink trip, no barrier. Reuse: the root receives
// nothing, so no data of a peer holds it back; each peer's block b therefore acknowledges
// launch e (kPhaseLeave = e, after its reads) and the root's block b waits for every peer's
// acknowledgement of e - 2 before it overwrites parity e & 1 at launch e (the same lines, as
// the grid is the same on every rank). The wait is normally already satisfied.
#include "kernels/collectives/coll_params.cuh"
#include "kernels/collectives/ll_lines.cuh"
#ifdef __CUDACC__
#include "kernels/collectives/segments_ll.cuh"
#endif

namespace pk::coll {

struct BroadcastConfig {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kBytesPerBlock = 16 * 1024;
  static constexpr int kRoot = 0;
};

struct BroadcastLlConfig : LlLines {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kLinesPerBlock = 256;
  // Landing lines on one rank: 2 epoch parities x the lines of `count` elements (one source).
  PK_COLL_HD static constexpr uint64_t scratch_bytes(uint64_t count, uint64_t elem_bytes) {
    return 2ull * lines(count, elem_bytes) * kLineBytes;
  }
};

template <class T>
__global__ void __launch_bounds__(BroadcastConfig::kThreads)
    broadcast_pull_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec;
  const int e = begin_epoch(p.sync);
  if (!exchange(p.sync, kPhaseEnter, e)) return;
  const T* root = p.in.at[BroadcastConfig::kRoot];
  T* out = p.out.local();
  const uint64_t vecs = p.count / V;
  const Slice s = block_slice(vecs, blockIdx.x, gridDim.x);
  copy_vectors(reinterpret_cast<uint4*>(out) + s.lo, reinterpret_cast<const uint4*>(root) + s.lo, s.hi - s.lo,
               threadIdx.x, blockDim.x);
  if (blockIdx.x == gridDim.x - 1)
    for (uint64_t i = vecs * V + threadIdx.x; i < p.count; i += blockDim.x) out[i] = root[i];
  if (!exchange(p.sync, kPhaseLeave, e)) return;
  end_epoch(p.sync, e);
}

#ifdef __CUDACC__
template <class T>
__global__ void __launch_bounds__(BroadcastLlConfig::kThreads)
    broadcast_ll_kernel(const __grid_constant__ CollParams<T> p) {
  using P = LlPayload<T>;
  constexpr int kRoot = BroadcastConfig::kRoot;
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  const uint64_t count = p.count, lines = BroadcastLlConfig::lines(count, sizeof(T));
  const bool whole = BroadcastLlConfig::whole_lines(count, sizeof(T));
  const uint64_t par = static_cast<uint64_t>(e & 1);
  auto line = [&](int owner, uint64_t u) {
    return reinterpret_cast<char*>(p.scratch.at[owner]) + (par * lines + u) * BroadcastLlConfig::kLineBytes;
  };
  const uint64_t flag = static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32;
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  T* out = p.out.local();
  bool ok = true;
  if (self == kRoot) {
    ok = __syncthreads_and(wait_peers(p.sync, kPhaseLeave, e - 2));
    for (uint64_t u = first; ok && u < lines; u += step) {
      const uint2 d = P::load(p.in.local(), u, count, whole);
      for (int k = 1; k < n; ++k) ptx::st_volatile_v2_u64(line((self + k) % n, u), flag | d.x, flag | d.y);
      P::store(out, u, count, whole, d);
    }
  } else {
    for (uint64_t u = first; ok && u < lines; u += step) {
      uint64_t a = 0, b = 0;
      ok = spin_until(
          [&] {
            ptx::ld_volatile_v2_u64(line(self, u), a, b);
            return static_cast<int>(a >> 32) == e && static_cast<int>(b >> 32) == e;
          },
          p.sync.deadline, kWaitFlag | (static_cast<unsigned long long>(kRoot) << 16));
      if (ok) P::store(out, u, count, whole, make_uint2(static_cast<uint32_t>(a), static_cast<uint32_t>(b)));
    }
    ok = __syncthreads_and(ok);
    if (ok && threadIdx.x == 0) ptx::st_release_sys(flag_at(p.sync, kRoot, kPhaseLeave, self), e);
  }
  if (__syncthreads_and(ok)) end_epoch(p.sync, e);
}
#endif  // __CUDACC__

}  // namespace pk::coll
