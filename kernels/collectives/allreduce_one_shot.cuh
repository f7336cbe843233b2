#pragma once
// All-reduce, one-shot pull: every GPU reads every peer's whole input and sums it into its
// own output. Traffic-optimal on 2 GPUs; latency-optimal at every GPU count (one step).
//   enter:  peers' inputs are ready (each peer's launch has begun, and its inputs were
//           written before it in stream order)
//   reduce: 16-B loads from every rank (peer order rotated per rank), fp32 sums, one store
//   leave:  every peer has finished reading this GPU's input, so the caller may overwrite
//           it once the kernel ends
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

struct OneShotConfig {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kBytesPerBlock = 4 * 1024;  // many blocks early: each thread has few loads in flight
};

template <class T>
__global__ void __launch_bounds__(OneShotConfig::kThreads)
    all_reduce_one_shot_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int V = Elem<T>::kPerVec;
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  if (!exchange(p.sync, kPhaseEnter, e)) return;
  const uint64_t vecs = p.count / V;
  const Slice s = block_slice(vecs, blockIdx.x, gridDim.x);
  for (uint64_t v = s.lo + threadIdx.x; v < s.hi; v += blockDim.x) {
    float acc[V] = {};
#pragma unroll
    for (int k = 0; k < kMaxGpus; ++k)
      if (k < n) add_vec<T>(acc, ptx::ld_v4(p.in.at[(self + k) % n] + v * V));
    ptx::st_v4(p.out.local() + v * V, Elem<T>::pack(acc));
  }
  if (blockIdx.x == gridDim.x - 1)
    reduce_scalars<T>(vecs * V, p.count, n, self, [&](int r) { return p.in.at[r]; },
                      [&](uint64_t i, T v) { p.out.local()[i] = v; });
  if (!exchange(p.sync, kPhaseLeave, e)) return;
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
