#pragma once
// All-reduce, two-shot push staged through a small FIFO: Figure 6's ablation (d). The
// algorithm, chunking, grid and threads of two_shot_push (allreduce_two_shot.cuh), but no
// byte lands in its final place on another GPU: every transfer goes through kSlots slots
// of kSlotBytes per (block, source) in the receiver's scratch, with per-slot flow control
// as in an NCCL channel, and the receiver moves it out:
//   A (reduce-scatter): step j, send piece j of my slice of chunk r to rank r's FIFO; then
//      out[piece j of chunk me] = my input + the piece from every peer's FIFO;
//   B (all-gather):     step j, send piece j of my reduced chunk (out) to every peer's
//      FIFO; then copy each peer's piece j of its chunk from my FIFO into out.
// Each step sends to every peer, then receives from every peer. A piece is at most one slot
// (16-B vectors, the last chunk's odd tail as scalars); every block runs the same number of
// steps per phase (set by the longest slice, chunk 0's; shorter slices send empty pieces),
// so block b of every rank agrees on every sequence number.
//
// Sequence numbers, not epochs: the steps of all launches count 1, 2, 3, ... per (sender,
// receiver, block): step i of epoch e is q = (e - 1) * 2 * steps + i + 1, in slot
// (q - 1) % kSlots. The epoch is per block in device memory, so graph replays count on;
// the harness zeroes flags and epochs per point. (q stays below 2^31 for ~1e9 / steps
// launches of one point.)
//
// No deadlock: a send of q needs only the credit of q - kSlots, drained at an earlier step;
// so once every block has finished step i - 1 on every rank, all sends of step i proceed
// and so do all receives of step i, whatever n. Every block must be resident (the grid
// never exceeds it).
//
// Signals (one writer per word; coll_sync.cuh's release/acquire pattern for both):
//   data    kPhaseData word (owner receiver, src sender) := q. The block's slot stores,
//           then bar.sync, then st.release.sys by thread r (exchange()); the receiver's
//           thread r polls ld.acquire.sys >= q, then bar.sync, then the block reads the slot.
//   credit  kPhaseCredit word (owner sender, src receiver) := q. The block's slot loads,
//           then bar.sync, then st.release.sys; the sender's thread polls ld.acquire.sys
//           >= q - kSlots before bar.sync and the stores that overwrite the slot (the
//           release orders the loads before those stores: no reader sees its slot change).
// Only the FIFOs and flags are shared: inputs and outputs are touched by their own GPU
// alone, so no enter or leave barrier. Ablation (b)+(d) `handshake`: the two-shot kernel's
// two-way exchange before each phase.
#include "kernels/collectives/allreduce_two_shot.cuh"

namespace pk::coll {

struct StagedConfig {
  // The same launch as two_shot_push, so that the comparison isolates the staging.
  static constexpr int kThreads = TwoShotConfig::kThreads;
  static constexpr uint64_t kBytesPerBlock = TwoShotConfig::kBytesPerBlock;
  static constexpr int kSlots = 4;
  static constexpr uint64_t kSlotBytes = 8 * 1024;  // one 16-B vector per thread
  static constexpr uint64_t kSlotVecs = kSlotBytes / 16;
  // Scratch of the FIFOs: kSlots slots per (block, source), n sources (self unused).
  __host__ __device__ static constexpr uint64_t fifo_bytes(int n, int blocks) {
    return static_cast<uint64_t>(blocks) * n * kSlots * kSlotBytes;
  }
};

// Elements [lo, hi) of piece j of this block's slice of rank r's chunk.
template <int V>
__device__ __forceinline__ Chunk staged_piece(uint64_t count, int n, int r, uint64_t j) {
  const Chunk c = chunk_of(count, n, r, V);
  const Slice s = block_slice((c.hi - c.lo + V - 1) / V, blockIdx.x, gridDim.x);
  const uint64_t lo = min(s.lo + j * StagedConfig::kSlotVecs, s.hi), hi = min(lo + StagedConfig::kSlotVecs, s.hi);
  return {min(c.lo + lo * V, c.hi), min(c.lo + hi * V, c.hi)};  // a partial last vector ends at c.hi
}

// vec(o) for every whole 16-B vector of a piece of `elems`, scalar(o) for its odd end.
template <class T, class Vec, class Scalar>
__device__ __forceinline__ void for_piece(uint64_t elems, Vec vec, Scalar scalar) {
  constexpr int V = Elem<T>::kPerVec;
  const uint64_t vecs = elems / V;
  for (uint64_t v = threadIdx.x; v < vecs; v += blockDim.x) vec(v * V);
  for (uint64_t o = vecs * V + threadIdx.x; o < elems; o += blockDim.x) scalar(o);
}

template <class T>
__global__ void __launch_bounds__(StagedConfig::kThreads)
    all_reduce_two_shot_staged_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec, S = StagedConfig::kSlots;
  constexpr uint64_t kSlotElems = StagedConfig::kSlotBytes / sizeof(T);
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  const T* in = p.in.local();
  T* out = p.out.local();
  const Chunk c0 = chunk_of(p.count, n, 0, V);  // the longest chunk
  const uint64_t longest = ((c0.hi - c0.lo + V - 1) / V + gridDim.x - 1) / gridDim.x;
  const int steps = static_cast<int>((longest + StagedConfig::kSlotVecs - 1) / StagedConfig::kSlotVecs);
  auto fifo = [&](int owner, int src, int slot) {
    return p.scratch.at[owner] + ((static_cast<uint64_t>(blockIdx.x) * n + src) * S + slot) * kSlotElems;
  };
  for (int i = 0; i < 2 * steps; ++i) {
    const bool a = i < steps;
    const int j = a ? i : i - steps, q = (e - 1) * 2 * steps + i + 1, slot = (q - 1) % S;
    if (p.handshake && j == 0 && !exchange(p.sync, a ? kPhaseReadyA : kPhaseReadyB, e)) return;
    // Send: wait until every receiver has drained this slot (sequence q - S).
    if (!__syncthreads_and(wait_peers(p.sync, kPhaseCredit, q - S))) return;
    if (a) {
      for (int k = 1; k < n; ++k) {
        const int r = (self + k) % n;
        const Chunk pc = staged_piece<V>(p.count, n, r, j);
        T* dst = fifo(r, self, slot);
        const T* src = in + pc.lo;
        for_piece<T>(pc.hi - pc.lo, [&](uint64_t o) { ptx::st_v4(dst + o, ptx::ld_v4(src + o)); },
                     [&](uint64_t o) { dst[o] = src[o]; });
      }
    } else {
      const Chunk pc = staged_piece<V>(p.count, n, self, j);
      const T* src = out + pc.lo;
      for_piece<T>(pc.hi - pc.lo,
                   [&](uint64_t o) {
                     const uint4 v = ptx::ld_v4(src + o);
#pragma unroll
                     for (int k = 1; k < kMaxGpus; ++k)
                       if (k < n) ptx::st_v4(fifo((self + k) % n, self, slot) + o, v);
                   },
                   [&](uint64_t o) {
                     for (int k = 1; k < n; ++k) fifo((self + k) % n, self, slot)[o] = src[o];
                   });
    }
    // Publish the slot to every receiver, and wait for every sender's slot q.
    if (!exchange(p.sync, kPhaseData, q)) return;
    if (a) {
      const Chunk pc = staged_piece<V>(p.count, n, self, j);
      for_piece<T>(
          pc.hi - pc.lo,
          [&](uint64_t o) {
            float acc[V] = {};
            add_vec<T>(acc, ptx::ld_v4(in + pc.lo + o));
#pragma unroll
            for (int k = 1; k < kMaxGpus; ++k)
              if (k < n) add_vec<T>(acc, ptx::ld_v4(fifo(self, (self + k) % n, slot) + o));
            ptx::st_v4(out + pc.lo + o, Elem<T>::pack(acc));
          },
          [&](uint64_t o) {
            float acc = Elem<T>::to_f32(in[pc.lo + o]);
            for (int k = 1; k < n; ++k) acc += Elem<T>::to_f32(fifo(self, (self + k) % n, slot)[o]);
            out[pc.lo + o] = Elem<T>::from_f32(acc);
          });
    } else {
      for (int k = 1; k < n; ++k) {
        const int r = (self + k) % n;
        const Chunk pc = staged_piece<V>(p.count, n, r, j);
        const T* src = fifo(self, r, slot);
        for_piece<T>(pc.hi - pc.lo, [&](uint64_t o) { ptx::st_v4(out + pc.lo + o, ptx::ld_v4(src + o)); },
                     [&](uint64_t o) { out[pc.lo + o] = src[o]; });
      }
    }
    // Hand the slot back to every sender.
    __syncthreads();
    signal_peers(p.sync, kPhaseCredit, q);
  }
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
