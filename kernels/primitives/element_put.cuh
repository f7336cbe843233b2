#pragma once
// Element-wise put: every thread of a group moves one element (4 or 16 bytes) from a local
// source to the same index of the peer's copy, call after call. One kernel for every style:
// the style is a policy (PK below; NCCL in nccl_style.cuh; NVSHMEM in nvshmem_style.cuh)
// with
//   put(first, lane, group)  one call of the group: elements [first, first + group)
//   complete()               one thread, after a block barrier: make the puts visible
//   finish()                 end of a bandwidth pass (NVSHMEM: quiet, as its perftests do)
// Element index of call k for group g: (k * groups + g) * group + lane, so a pass writes
// every element of [0, samples * calls * grid * block) exactly once and can be checked.
//   timed (cycles != nullptr): one block; thread 0 times each sample of `calls` calls up to
//     the completion of its puts (clock64), the latency of one call = sample / calls.
//   untimed: a bandwidth pass over the whole grid, timed outside with events.
#include <cstdint>

#include "kernels/pattern.cuh"
#include "kernels/peer_table.cuh"
#include "kernels/ptx.cuh"
#include "kernels/sync_timing.cuh"

namespace pk::prim {

using pk::sync::TimingRecord;

struct PutShape {
  uint32_t group;    // threads that make one call together: 1, 32 or blockDim.x
  uint32_t calls;    // calls per sample
  uint32_t samples;  // samples per launch
};

template <int Bytes> struct ElemType;
template <> struct ElemType<4> { using type = uint32_t; };
template <> struct ElemType<16> { using type = uint4; };

template <class Policy>
__global__ void element_put_kernel(const Policy p, const PutShape s, uint32_t* cycles, TimingRecord* rec) {
  const uint32_t G = s.group;
  const uint32_t lane = threadIdx.x % G;
  const uint64_t per_block = blockDim.x / G;
  const uint64_t groups = uint64_t(gridDim.x) * per_block;
  const uint64_t group = uint64_t(blockIdx.x) * per_block + threadIdx.x / G;
  const bool timed = cycles != nullptr;
  if (timed && threadIdx.x == 0) sync::record_start(rec);
  for (uint32_t smp = 0; smp < s.samples; ++smp) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    for (uint32_t c = 0; c < s.calls; ++c) p.put(((uint64_t(smp) * s.calls + c) * groups + group) * G, lane, G);
    if (timed) {
      __syncthreads();
      if (threadIdx.x == 0) {
        p.complete();
        cycles[smp] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
      }
      __syncthreads();
    }
  }
  if (!timed) p.finish();
  if (timed && threadIdx.x == 0) sync::record_end(rec);
}

// The value of 4-B element i made in registers (no source load): element i of the random
// pattern (pattern.cuh), so the destination is checked like any copy. Same ALU work in
// every style; it stands for the value an element-wise put sends from a register.
__device__ __forceinline__ uint32_t register_value(uint64_t seed, uint64_t i) {
  const uint64_t w = pattern_word(seed, i >> 1);
  return (i & 1) ? static_cast<uint32_t>(w >> 32) : static_cast<uint32_t>(w);
}

// PK style: the peer's address comes from the symmetric table passed by value (a kernel
// parameter: the constant bank, no global-memory lookup), one global store per element, no
// group synchronisation. Reg: the value is made in registers instead of loaded from src.
// Completion of a timed sample: fence.sc.sys, the instruction that nvshmem_quiet issues on
// NVLink, so the two styles differ only per call.
template <class T, bool Reg = false>
struct PkPut {
  PeerTable<T> dst;
  int pe;
  const T* src;
  uint64_t seed;  // Reg: the pattern's seed
  __device__ void put(uint64_t first, uint32_t lane, uint32_t) const {
    const uint64_t i = first + lane;
    if constexpr (Reg) ptx::st_global(dst.at[pe] + i, register_value(seed, i));
    else ptx::st_global(dst.at[pe] + i, ptx::ld_global(src + i));
  }
  __device__ void complete() const { pk::ptx::fence_sc_sys(); }
  __device__ void finish() const {}
};

}  // namespace pk::prim
