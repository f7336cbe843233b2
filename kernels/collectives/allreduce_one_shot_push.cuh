#pragma once
// one_shot_push: the push twin of one_shot (which pulls). Every rank writes its whole input
// into slot [self] of every peer's scratch, signals, and once every peer's slot has arrived
// sums its own input and the n-1 slots into its output. NVLink carries posted writes only
// (no read round trips), one signal per launch instead of one_shot's enter and leave.
//   push:   16-B loads of my input, stores into every peer's slot [self] (peers rotated per
//           rank); the last block pushes the odd elements after the last whole vector
//   A:      every peer's block b has pushed its slice b (the same slice this block sums)
//   reduce: fp32 sums of my input and the n-1 slots, one local store
// Reuse without a leave barrier: the slots are double-buffered by epoch parity. A peer runs
// at most one launch ahead (its launch e+1 waits for this rank's phase A of e+1, sent only
// after this rank's launch e ended), so it writes parity (e+1)&1 while this rank may still
// read parity e&1. Inputs are read only by their owner and outputs written only locally, so
// nothing else needs a barrier. Scratch: 2 parities x n slots of the whole vector, so it
// serves up to kMaxBytes.
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

struct OneShotPushConfig {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kBytesPerBlock = 4 * 1024;  // as one_shot: many blocks early
  static constexpr uint64_t kMaxBytes = 64ull << 20;
};

template <class T>
__global__ void __launch_bounds__(OneShotPushConfig::kThreads)
    all_reduce_one_shot_push_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec;
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  const uint64_t parity = static_cast<uint64_t>(e & 1) * n;  // first slot of this launch's parity
  const T* in = p.in.local();
  const uint64_t vecs = p.count / V;
  const Slice s = block_slice(vecs, blockIdx.x, gridDim.x);
  const bool tail = blockIdx.x == gridDim.x - 1;
  for (uint64_t v = s.lo + threadIdx.x; v < s.hi; v += blockDim.x) {
    const uint4 x = ptx::ld_v4(in + v * V);
#pragma unroll
    for (int k = 1; k < kMaxGpus; ++k)
      if (k < n) ptx::st_v4(p.scratch.at[(self + k) % n] + (parity + self) * p.slot_elems + v * V, x);
  }
  if (tail)
    for (uint64_t i = vecs * V + threadIdx.x; i < p.count; i += blockDim.x)
      for (int k = 1; k < n; ++k) p.scratch.at[(self + k) % n][(parity + self) * p.slot_elems + i] = in[i];
  if (!exchange(p.sync, kPhaseA, e)) return;
  auto src_of = [&](int r) -> const T* { return r == self ? in : p.scratch.local() + (parity + r) * p.slot_elems; };
  for (uint64_t v = s.lo + threadIdx.x; v < s.hi; v += blockDim.x) {
    float acc[V] = {};
#pragma unroll
    for (int k = 0; k < kMaxGpus; ++k)
      if (k < n) add_vec<T>(acc, ptx::ld_v4(src_of((self + k) % n) + v * V));
    ptx::st_v4(p.out.local() + v * V, Elem<T>::pack(acc));
  }
  if (tail) reduce_scalars<T>(vecs * V, p.count, n, self, src_of, [&](uint64_t i, T v) { p.out.local()[i] = v; });
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
