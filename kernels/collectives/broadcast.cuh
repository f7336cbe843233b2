#pragma once
// Broadcast, pull: every rank copies root 0's input into its own output through the peer
// table (the root copies its own); one step, read traffic only.
//   enter: the root's input is ready (its launch has begun, and the input was written before
//          it in stream order)
//   copy:  16-B loads from the root's input, stores to the local output (block slices); the
//          last block copies the odd elements after the last whole vector
//   leave: every rank has finished reading the root's input, so the root may overwrite it
//          once the kernel ends
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

struct BroadcastConfig {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kBytesPerBlock = 16 * 1024;
  static constexpr int kRoot = 0;
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

}  // namespace pk::coll
