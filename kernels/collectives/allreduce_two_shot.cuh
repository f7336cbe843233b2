#pragma once
// All-reduce, two-shot: a reduce-scatter (rank r reduces chunk r) then an all-gather of the
// reduced chunks. Each GPU moves 2 (n-1)/n of the data, the bus-bandwidth optimum.
//
// Push (the default for large messages; the transfer study measures push faster than
// bidirectional pull on NVLink):
//   A: write my input's chunk p into rank p's scratch slot [me] (pre-allocated landing
//      buffers: one-way signalling, no handshake), signal;
//   B: wait for every peer's slot, sum chunk `me` in fp32, store it locally and into every
//      peer's output, signal; wait for the peers' reduced chunks.
// Buffer reuse without an extra barrier: in launch e+1 rank A writes B's slot [A] only
// after A's launch e ended, which needed B's phase-B signal of block b, sent after B's
// block b read that slot. A writes B's output only after B's phase-A data of launch e+1
// arrived, so B has entered launch e+1 and its earlier consumers of the output are done.
//
// Pull:
//   enter: inputs ready; reduce chunk `me` from every rank's input into my output;
//   A: reduced chunks ready; copy chunk p from rank p's output;
//   leave: every peer is done reading my input and my output chunk.
//
// Ablation (b) `handshake`: before each data phase, a two-way exchange (the receiver says
// "ready", the sender waits for it) as protocols without pre-allocated buffers need.
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

struct TwoShotConfig {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kBytesPerBlock = 4 * 1024;  // per block of one chunk
  // Push: 16-B vectors per thread loaded before the first store, in phase A's scatter
  // (copy_vectors, kCopyUnroll) and phase B's reduce (kUnroll x n loads). The grid is at
  // most one block per SM, so 512 threads with one load each left 8 KiB in flight per SM:
  // latency-bound at 16 MiB (Nsight Compute, results/h100x1/collectives/virtual/ncu).
  static constexpr int kUnroll = 4;
};

// Pipelined (p.rounds > 1, `two_shot_push_rounds`): every block's slice in rounds; round r
// is scattered, then round r - 1 (its slots signalled a round ago) reduced and pushed while
// round r's stores drain, then round r signalled (round_seq: one flag word per block and
// peer, its value growing per round). The reduce of one round overlaps the next round's
// scatter instead of every block scattering all, then reducing all, with the links idle for
// the sum. The trailing exchange (phase B) is unchanged, so is the reuse argument above. One
// round is the unpipelined kernel.
template <class T>
__global__ void __launch_bounds__(TwoShotConfig::kThreads)
    all_reduce_two_shot_push_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec;
  const int n = p.in.size, self = p.in.self, rounds = rounds_of(p.rounds);
  const int e = begin_epoch(p.sync);
  const T* in = p.in.local();
  if (p.handshake && !exchange(p.sync, kPhaseReadyA, e)) return;
  // A: scatter round r of my chunk p to rank p's slot [self] (the odd tail with the last round).
  auto scatter = [&](int round) {
    for (int k = 1; k < n; ++k) {
      const int r = (self + k) % n;
      const Chunk c = chunk_of(p.count, n, r, V);
      T* dst = p.scratch.at[r] + static_cast<uint64_t>(self) * p.slot_elems;
      const uint64_t vecs = (c.hi - c.lo) / V;
      const Slice s = round_slice(block_slice(vecs, blockIdx.x, gridDim.x), rounds, round);
      copy_vectors(reinterpret_cast<uint4*>(dst) + s.lo, reinterpret_cast<const uint4*>(in + c.lo) + s.lo, s.hi - s.lo,
                   threadIdx.x, blockDim.x);
      if (round == rounds - 1 && blockIdx.x == gridDim.x - 1)
        for (uint64_t i = c.lo + vecs * V + threadIdx.x; i < c.hi; i += blockDim.x) dst[i - c.lo] = in[i];
    }
  };
  // B: reduce round r of my chunk (slots written by the same block index of every peer) and push it.
  const Chunk c = chunk_of(p.count, n, self, V);
  const T* slots = p.scratch.local();
  const uint64_t vecs = (c.hi - c.lo) / V;
  // kUnroll vectors per thread (strided by the block), then one at a time for the rest.
  auto sum_push = [&](uint64_t v, auto u) {
    constexpr int U = decltype(u)::value;
    float acc[U][V];
    sum_slot_vectors<T, U>(acc, p, in, slots, c.lo + v * V, v * V, uint64_t(blockDim.x) * V, n, self);
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const uint4 sum = Elem<T>::pack(acc[j]);
      const uint64_t at = c.lo + (v + j * uint64_t(blockDim.x)) * V;
#pragma unroll
      for (int k = 0; k < kMaxGpus; ++k)
        if (k < n) ptx::st_v4(p.out.at[(self + k) % n] + at, sum);
    }
  };
  auto reduce = [&](int round) {
    const Slice s = round_slice(block_slice(vecs, blockIdx.x, gridDim.x), rounds, round);
    for_vectors<TwoShotConfig::kUnroll>(s.lo + threadIdx.x, s.hi, uint64_t(blockDim.x), sum_push);
    if (round == rounds - 1) reduce_chunk_tail<T>(p, in, slots, c, c.lo + vecs * V, n, self);
  };
  for (int r = 0; r <= rounds; ++r) {
    if (r < rounds) scatter(r);
    if (r > 0) {
      if (p.handshake && r == 1 && !exchange(p.sync, kPhaseReadyB, e)) return;
      const bool ok = wait_peers(p.sync, kPhaseA, round_seq(e, rounds, r - 1));
      if (!__syncthreads_and(ok)) return;
      reduce(r - 1);
    }
    if (r < rounds) {
      __syncthreads();
      signal_peers(p.sync, kPhaseA, round_seq(e, rounds, r));
    }
  }
  if (!exchange(p.sync, kPhaseB, e)) return;
  end_epoch(p.sync, e);
}

template <class T>
__global__ void __launch_bounds__(TwoShotConfig::kThreads)
    all_reduce_two_shot_pull_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec;
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  if (!exchange(p.sync, kPhaseEnter, e)) return;
  T* out = p.out.local();
  {
    const Chunk c = chunk_of(p.count, n, self, V);
    const uint64_t vecs = (c.hi - c.lo) / V;
    const Slice s = block_slice(vecs, blockIdx.x, gridDim.x);
    for (uint64_t v = s.lo + threadIdx.x; v < s.hi; v += blockDim.x) {
      float acc[V] = {};
#pragma unroll
      for (int k = 0; k < kMaxGpus; ++k)
        if (k < n) add_vec<T>(acc, ptx::ld_v4(p.in.at[(self + k) % n] + c.lo + v * V));
      ptx::st_v4(out + c.lo + v * V, Elem<T>::pack(acc));
    }
    if (blockIdx.x == gridDim.x - 1)
      reduce_scalars<T>(c.lo + vecs * V, c.hi, n, self, [&](int r) { return p.in.at[r]; },
                        [&](uint64_t i, T v) { out[i] = v; });
  }
  if (!exchange(p.sync, kPhaseA, e)) return;
  for (int k = 1; k < n; ++k) {
    const int r = (self + k) % n;
    const Chunk c = chunk_of(p.count, n, r, V);
    const T* src = p.out.at[r];
    const uint64_t vecs = (c.hi - c.lo) / V;
    const Slice s = block_slice(vecs, blockIdx.x, gridDim.x);
    for (uint64_t v = s.lo + threadIdx.x; v < s.hi; v += blockDim.x)
      ptx::st_v4(out + c.lo + v * V, ptx::ld_v4(src + c.lo + v * V));
    if (blockIdx.x == gridDim.x - 1)
      for (uint64_t i = c.lo + vecs * V + threadIdx.x; i < c.hi; i += blockDim.x) out[i] = src[i];
  }
  if (!exchange(p.sync, kPhaseLeave, e)) return;
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
