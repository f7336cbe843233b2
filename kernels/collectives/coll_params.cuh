#pragma once
// What every collective kernel of this folder receives, by value (__grid_constant__): the
// symmetric buffers as peer tables (no per-access table lookup), the signals, the count.
#include "kernels/collectives/coll_reference.cuh"
#include "kernels/collectives/coll_sync.cuh"
#include "kernels/collectives/coll_types.cuh"

namespace pk::coll {

template <class T>
struct CollParams {
  PeerTable<T> in;       // input (symmetric so that pull algorithms can read peers' copies)
  PeerTable<T> out;      // output (symmetric so that push algorithms can write peers' copies)
  PeerTable<T> scratch;  // pre-allocated landing buffers (two-shot slots, LL lines, staging)
  SyncTable sync;
  uint64_t count;        // elements per rank: all-reduce the whole vector; see each kernel
  uint64_t slot_elems;   // scratch slot stride (elements) where the kernel uses slots
  int handshake;         // ablation (b): a two-way handshake before each transfer phase
  int rounds;            // pipelined kernels: rounds per launch (each a sub-slice of every block's
                         // work, its data signalled on its own); <= 1: one, the unpipelined kernel
};

// The rounds a kernel runs for CollParams::rounds.
PK_COLL_HD constexpr int rounds_of(int rounds) { return rounds > 1 ? rounds : 1; }

// The flag value of round r of launch e: grows by one per round of every launch, so a flag
// compared with >= never confuses launches; with one round it is the epoch itself.
PK_COLL_HD constexpr int round_seq(int e, int rounds, int r) { return (e - 1) * rounds_of(rounds) + r + 1; }

#ifdef __CUDACC__
// Round r of `rounds` of a block's slice s (one round: s itself); rank-independent, so round r
// of block b covers the same items on every rank, as block_slice does.
__device__ __forceinline__ Slice round_slice(Slice s, int rounds, int r) {
  const uint64_t per = (s.hi - s.lo + rounds_of(rounds) - 1) / rounds_of(rounds);
  const uint64_t lo = s.lo + per * r < s.hi ? s.lo + per * r : s.hi;
  return {lo, lo + per < s.hi ? lo + per : s.hi};
}

// Scalar path for the odd elements [lo, hi) after the last whole vector: dst[i] = sum over
// ranks of src_r[i] (src given per rank), fp32 accumulation, peers in rotated order.
template <class T, class SrcOf, class Store>
__device__ __forceinline__ void reduce_scalars(uint64_t lo, uint64_t hi, int n, int self, SrcOf src_of, Store store) {
  for (uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    float acc = 0.f;
    for (int k = 0; k < n; ++k) acc += Elem<T>::to_f32(src_of((self + k) % n)[i]);
    store(i, Elem<T>::from_f32(acc));
  }
}

// The two-shot reduce of U vectors at once: acc[u] = my input at element in_off + u * step
// plus every peer's slot at slot_off + u * step (slot stride p.slot_elems), fp32, peers in
// rotated order. No store between the loads, so all U * n of them can be in flight before
// the first add (one vector per thread at a time is latency-bound in HBM and over NVLink).
// kPairFirst (the reduce-scatters): the first peer's U slot vectors are loaded raw beside
// the U input vectors before any of them is unpacked, so 2U loads are in flight even where
// the fp32 sums leave few registers (1024 threads: 64): at 64 registers ptxas otherwise
// issues the slot loads after the input's fp32 sums hold 32 of them (push_tma, sm_90a).
template <class T, int U, bool kPairFirst = false>
__device__ __forceinline__ void sum_slot_vectors(float (&acc)[U][Elem<T>::kPerVec], const CollParams<T>& p, const T* in,
                                                 const T* slots, uint64_t in_off, uint64_t slot_off, uint64_t step,
                                                 int n, int self) {
  auto start = [&](int u, const uint4& x) {  // acc[u] = 0 + x (fp32)
#pragma unroll
    for (int i = 0; i < Elem<T>::kPerVec; ++i) acc[u][i] = 0.f;
    add_vec<T>(acc[u], x);
  };
  if constexpr (kPairFirst) {
    uint4 x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = ptx::ld_v4(in + in_off + u * step);
    if (n > 1) {
      const T* slot = slots + static_cast<uint64_t>((self + 1) % n) * p.slot_elems + slot_off;
#pragma unroll
      for (int u = 0; u < U; ++u) y[u] = ptx::ld_v4(slot + u * step);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        start(u, x[u]);
        add_vec<T>(acc[u], y[u]);
      }
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) start(u, x[u]);
    }
  } else {
#pragma unroll
    for (int u = 0; u < U; ++u) start(u, ptx::ld_v4(in + in_off + u * step));
  }
#pragma unroll
  for (int k = kPairFirst ? 2 : 1; k < kMaxGpus; ++k)
    if (k < n) {
      const T* slot = slots + static_cast<uint64_t>((self + k) % n) * p.slot_elems + slot_off;
#pragma unroll
      for (int u = 0; u < U; ++u) add_vec<T>(acc[u], ptx::ld_v4(slot + u * step));
    }
}

// The two-shot reduce's odd tail, done by the last block: elements [from, c.hi) of my chunk c
// after its last whole vector or tile, my input plus the n-1 peers' slots (chunk-relative,
// slot stride p.slot_elems), the fp32 sum stored into every rank's output.
template <class T>
__device__ __forceinline__ void reduce_chunk_tail(const CollParams<T>& p, const T* in, const T* slots, Chunk c,
                                                  uint64_t from, int n, int self) {
  if (blockIdx.x != gridDim.x - 1) return;
  for (uint64_t i = from + threadIdx.x; i < c.hi; i += blockDim.x) {
    float acc = Elem<T>::to_f32(in[i]);
    for (int k = 1; k < n; ++k) acc += Elem<T>::to_f32(slots[static_cast<uint64_t>((self + k) % n) * p.slot_elems + i - c.lo]);
    for (int k = 0; k < n; ++k) p.out.at[(self + k) % n][i] = Elem<T>::from_f32(acc);
  }
}
#endif

}  // namespace pk::coll
