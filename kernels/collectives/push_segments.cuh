#pragma once
// Copies and reductions over "segments": the data a rank sends to rank p is a grid of
// n1 x n0 contiguous runs of `len` elements at affine offsets, so one kernel moves plain
// and strided layouts alike, directly (no reshape copy):
//   all-gather          1 x 1 runs of count,   to p's out at self*count
//   all-to-all          1 x 1 runs of count,   from in at p*count, to p's out at self*count
//   all-gather (cols)   1 x rows runs of cols, to p's out row i at self*cols   (Figure 15)
//   all-to-all (4-D)    B x Sl runs of H/n*D,  heads p*H/n.. of (b, s), to p's (b, self*Sl + s)
//   reduce-scatter (plain, cols): the same grids in reverse, summed at the owner
// Work is cut into items of at most kPieceBytes (one segment piece); block b takes the same
// items for every destination, so block b of the receiver knows block b of every sender
// wrote exactly the items it reads after their signal. A warp copies one item with 16-B
// vectors when every offset is 16-B aligned, else element by element.
#include "kernels/collectives/coll_params.cuh"
#include "kernels/collectives/seg_layout.cuh"

namespace pk::coll {

struct SegConfig {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kPieceBytes = 8192;
  static constexpr uint64_t kBytesPerBlock = 8 * 1024;
  // Reduce-scatter: 16-B vectors per lane whose loads (own input and every peer's slot) are
  // all issued before the first store of the local sum. One at a time (an 8 KiB bf16 piece
  // is 16 vectors per lane) left one load per source in flight per thread: the local sum
  // after the push is latency-bound like the all-reduce's (issue 20; 6ac26ca).
  static constexpr int kSumUnroll = 4;
};

#ifdef __CUDACC__
struct Item {
  uint64_t i1, i0, lo, hi;  // segment and element range [lo, hi) within it
};
__device__ __forceinline__ Item item_of(const SegLayout& L, uint64_t it) {
  const uint64_t seg = it / L.pieces, piece = it % L.pieces;
  const uint64_t lo = piece * L.piece_elems;
  return {seg / L.n0, seg % L.n0, lo, lo + L.piece_elems < L.len ? lo + L.piece_elems : L.len};
}

// One warp copies [lo, hi) of a run.
template <class T>
__device__ __forceinline__ void warp_copy(T* dst, const T* src, uint64_t elems, bool vec) {
  const uint32_t lane = threadIdx.x % 32;
  if (vec) {
    copy_vectors(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src), elems / Elem<T>::kPerVec, lane, 32);
  } else {
    for (uint64_t i = lane; i < elems; i += 32) dst[i] = src[i];
  }
}

// all-gather / all-to-all family: enter (receivers are in this launch, so their outputs may
// be overwritten), push every item to every rank (self included: a local copy), done.
template <class T>
__global__ void __launch_bounds__(SegConfig::kThreads)
    push_segments_kernel(const __grid_constant__ CollParams<T> p, const __grid_constant__ SegLayout L) {
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  if (!exchange(p.sync, kPhaseEnter, e)) return;
  const Slice s = block_slice(L.items(), blockIdx.x, gridDim.x);
  const uint32_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int k = 0; k < n; ++k) {
    const int r = (self + k) % n;
    for (uint64_t it = s.lo + warp; it < s.hi; it += warps) {
      const Item m = item_of(L, it);
      const T* src = p.in.local() + m.i1 * L.src1 + m.i0 * L.src0 + static_cast<uint64_t>(r) * L.src_p + m.lo;
      T* dst = p.out.at[r] + m.i1 * L.dst1 + m.i0 * L.dst0 + static_cast<uint64_t>(self) * L.dst_self + m.lo;
      warp_copy(dst, src, m.hi - m.lo, L.vec != 0);
    }
  }
  if (!exchange(p.sync, kPhaseB, e)) return;
  end_epoch(p.sync, e);
}

// all-gather / all-to-all (plain layouts: one run per rank block), landing: push every item to
// each peer's landing slot [self] (parity e & 1), then one data flag per (block, peer)
// (kPhaseA = e, st.release.sys after the block's barrier, as exchange() signals); copy the own
// block locally; then, as each peer's flag arrives, copy that peer's slot into the output. No
// peer ever writes this rank's output, so there is no enter barrier, and no leave barrier.
// Reuse (the LL protocol's argument, segments_ll.cuh): every launch of every block receives
// from every peer, so a peer's launch e + 1 cannot end before this rank's launch e + 1 pushed,
// which starts after this rank's launch e (and its reads of parity e & 1) ended; the peer
// writes parity e & 1 again at e + 2 at the earliest. The slot offset of an item is its place
// in the sender's block of the output (slot_elems: one rank block, padded to 16 B).
template <class T>
__global__ void __launch_bounds__(SegConfig::kThreads)
    push_landing_kernel(const __grid_constant__ CollParams<T> p, const __grid_constant__ SegLayout L) {
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  const uint64_t par = static_cast<uint64_t>(e & 1) * n * p.slot_elems;
  const Slice s = block_slice(L.items(), blockIdx.x, gridDim.x);
  const uint32_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
  auto src = [&](const Item& m, int r) {
    return p.in.local() + m.i1 * L.src1 + m.i0 * L.src0 + static_cast<uint64_t>(r) * L.src_p + m.lo;
  };
  auto at = [&](const Item& m) { return m.i1 * L.dst1 + m.i0 * L.dst0 + m.lo; };  // within a rank block
  for (int k = 1; k < n; ++k) {
    const int r = (self + k) % n;
    T* slot = p.scratch.at[r] + par + static_cast<uint64_t>(self) * p.slot_elems;
    for (uint64_t it = s.lo + warp; it < s.hi; it += warps) {
      const Item m = item_of(L, it);
      warp_copy(slot + at(m), src(m, r), m.hi - m.lo, L.vec != 0);
    }
    __syncthreads();
    if (threadIdx.x == 0) ptx::st_release_sys(flag_at(p.sync, r, kPhaseA, self), e);
  }
  T* out = p.out.local();
  for (uint64_t it = s.lo + warp; it < s.hi; it += warps) {
    const Item m = item_of(L, it);
    warp_copy(out + static_cast<uint64_t>(self) * L.dst_self + at(m), src(m, self), m.hi - m.lo, L.vec != 0);
  }
  for (int k = 1; k < n; ++k) {
    const int q = (self + n - k) % n;  // pushes to this rank at its step k, as this rank to self + k
    bool ok = true;
    if (threadIdx.x == 0) {
      const int* f = flag_at(p.sync, self, kPhaseA, q);
      ok = spin_until([&] { return ptx::ld_acquire_sys(f) >= e; }, p.sync.deadline,
                      kWaitBarrier | (static_cast<unsigned long long>(kPhaseA) << 8) |
                          (static_cast<unsigned long long>(q) << 16));
    }
    if (!__syncthreads_and(ok)) return;
    const T* slot = p.scratch.local() + par + static_cast<uint64_t>(q) * p.slot_elems;
    for (uint64_t it = s.lo + warp; it < s.hi; it += warps) {
      const Item m = item_of(L, it);
      warp_copy(out + static_cast<uint64_t>(q) * L.dst_self + at(m), slot + at(m), m.hi - m.lo, L.vec != 0);
    }
  }
  __syncthreads();
  end_epoch(p.sync, e);
}

// reduce-scatter family: push every item destined to a peer into that peer's landing slot
// [self] (parity-double-buffered by epoch: a peer can be one launch ahead, never two), then
// sum the items this rank owns: its own input plus every peer's slot. dst offsets index the
// (dense) output and the slots alike.
// Pipelined (p.rounds > 1): each block's items in rounds; round r is pushed, then round r - 1
// (whose flags have had a round's time to arrive) summed while round r's stores drain, then
// round r signalled (round_seq). One round is the unpipelined kernel: push, signal, wait, sum.
// (kThreads, 1): one block per SM is all the grid uses (at most the SM count); without the
// minimum ptxas capped the kernel at 64 registers and the kSumUnroll sum spilled (bf16).
template <class T>
__global__ void __launch_bounds__(SegConfig::kThreads, 1)
    reduce_scatter_segments_kernel(const __grid_constant__ CollParams<T> p, const __grid_constant__ SegLayout L) {
  constexpr int V = Elem<T>::kPerVec;
  const int n = p.in.size, self = p.in.self, rounds = rounds_of(p.rounds);
  const int e = begin_epoch(p.sync);
  if (p.handshake && !exchange(p.sync, kPhaseReadyA, e)) return;
  const uint64_t par = static_cast<uint64_t>(e & 1) * n * p.slot_elems;
  const Slice s = block_slice(L.items(), blockIdx.x, gridDim.x);
  const uint32_t warp = threadIdx.x / 32, warps = blockDim.x / 32, lane = threadIdx.x % 32;
  auto push = [&](Slice rs) {
    for (int k = 1; k < n; ++k) {
      const int r = (self + k) % n;
      for (uint64_t it = rs.lo + warp; it < rs.hi; it += warps) {
        const Item m = item_of(L, it);
        const T* src = p.in.local() + m.i1 * L.src1 + m.i0 * L.src0 + static_cast<uint64_t>(r) * L.src_p + m.lo;
        T* dst = p.scratch.at[r] + par + static_cast<uint64_t>(self) * p.slot_elems + m.i1 * L.dst1 + m.i0 * L.dst0 + m.lo;
        warp_copy(dst, src, m.hi - m.lo, L.vec != 0);
      }
    }
  };
  const T* slots = p.scratch.local() + par;
  auto sum = [&](Slice rs) {
    for (uint64_t it = rs.lo + warp; it < rs.hi; it += warps) {
      const Item m = item_of(L, it);
      const T* own = p.in.local() + m.i1 * L.src1 + m.i0 * L.src0 + static_cast<uint64_t>(self) * L.src_p + m.lo;
      const uint64_t d = m.i1 * L.dst1 + m.i0 * L.dst0 + m.lo;
      T* out = p.out.local() + d;
      const uint64_t elems = m.hi - m.lo;
      if (L.vec) {
        // kSumUnroll vectors per lane (strided by the warp), all their loads before the first
        // store, then one at a time for the rest of the item.
        auto sum_lane = [&](uint64_t v, auto u) {
          constexpr int U = decltype(u)::value;
          float acc[U][V];
          sum_slot_vectors<T, U, true>(acc, p, own, slots, v * V, d + v * V, 32 * V, n, self);
#pragma unroll
          for (int j = 0; j < U; ++j) ptx::st_v4(out + (v + j * 32) * V, Elem<T>::pack(acc[j]));
        };
        for_vectors<SegConfig::kSumUnroll>(uint64_t(lane), elems / V, uint64_t(32), sum_lane);
      } else {
        for (uint64_t i = lane; i < elems; i += 32) {
          float acc = Elem<T>::to_f32(own[i]);
          for (int k = 1; k < n; ++k) acc += Elem<T>::to_f32(slots[static_cast<uint64_t>((self + k) % n) * p.slot_elems + d + i]);
          out[i] = Elem<T>::from_f32(acc);
        }
      }
    }
  };
  for (int r = 0; r <= rounds; ++r) {
    if (r < rounds) push(round_slice(s, rounds, r));
    if (r > 0) {
      const bool ok = wait_peers(p.sync, kPhaseA, round_seq(e, rounds, r - 1));
      if (!__syncthreads_and(ok)) return;
      sum(round_slice(s, rounds, r - 1));
    }
    if (r < rounds) {
      __syncthreads();
      signal_peers(p.sync, kPhaseA, round_seq(e, rounds, r));
    }
  }
  // No trailing barrier: the next launch's phase A needs this rank's data, so no peer can
  // reuse this parity before this launch has read it.
  __syncthreads();
  end_epoch(p.sync, e);
}
#endif  // __CUDACC__

}  // namespace pk::coll
