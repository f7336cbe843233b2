#pragma once
// Signals of the expert-parallel kernels, and the memory ordering of every one of them.
//
// Epochs. Each kernel instance keeps one epoch in device memory: every block of a launch
// reads e = *ctr + 1 when it starts; the last block to finish (a done counter, reset by that
// block) stores e. The next launch follows in stream order, so it reads e. Epochs only grow
// over a run (nothing resets them between points), so a flag holding an older epoch, or the
// landing line of an earlier point, never passes for this launch's; a point may change the
// grid (the SM sweep) without the blocks disagreeing. Every rank launches every instance
// equally often, so every rank's launch k has epoch k.
//
// Flags with the data (the low-latency lines): a 16-B line is two 8-B elements {4 B data,
// 4 B epoch}; an aligned 8-B access is single-copy atomic, so a reader that sees the epoch in
// an element sees the data beside it, with no fence (kernels/ptx/global.cuh).
//
// Flags after the data (the high-throughput path): the writer's lanes store the data, the
// warp (or block) synchronises, then one lane publishes the flag with a release
// (st.release.sys / red.release.sys to another GPU, .gpu for a flag only this GPU reads); a
// release is cumulative, so the data the barrier ordered before it goes with it. The reader
// polls with an acquire of the same scope, then synchronises its warp before any lane reads
// the data. Every wait is bounded by the Deadline and records a timeout instead of hanging.
#include <cstdint>

#include "kernels/ep/ep_types.cuh"
#include "kernels/peer_table.cuh"
#include "kernels/ptx.cuh"
#include "kernels/spin_wait.cuh"

namespace pk::ep {

// Wait tags (DeviceStatus::detail): what a timed-out wait was for (| source rank << 16).
enum EpWait : unsigned long long {
  kWaitCounts = 0x1000,   // count exchange: a source's per-expert counts
  kWaitToken = 0x2000,    // a token slot's flag (ht) or its LL lines (ll)
  kWaitPartial = 0x3000,  // combine: a rank's partial sums
  kWaitHello = 0x4000,    // ll combine: a rank's launch began
  kWaitTile = 0x5000,     // overlap: a row tile of the receive layout filled
};

struct KernelEpoch {
  int* ctr;   // the last finished launch's epoch
  int* done;  // blocks of this launch that finished (reset by the last)
};

#ifdef __CUDACC__

// Every thread of the block calls it; the block's epoch for this launch.
__device__ __forceinline__ int begin_epoch(const KernelEpoch& k) {
  __shared__ int epoch;
  if (threadIdx.x == 0) epoch = ptx::ld_relaxed_gpu(k.ctr) + 1;
  __syncthreads();
  return epoch;
}
// Every thread of the block calls it, after the block's last access to anything the next
// launch may change. The last block of the grid stores the epoch; returns true in its threads.
__device__ __forceinline__ bool end_epoch(const KernelEpoch& k, int e) {
  __shared__ int last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(k.done, 1) == static_cast<int>(gridDim.x) - 1;
    if (last) {
      __threadfence();
      *k.done = 0;
      ptx::st_relaxed_gpu(k.ctr, e);
    }
  }
  __syncthreads();
  return last != 0;
}

// ---- LL elements: {data32, epoch32} ----
__device__ __forceinline__ uint64_t ll_word(uint32_t data, int e) {
  return static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32 | data;
}
// Writes 8 B of payload as one 16-B line (two elements).
__device__ __forceinline__ void ll_store(void* line, uint2 d, int e) {
  ptx::st_volatile_v2_u64(line, ll_word(d.x, e), ll_word(d.y, e));
}
// Polls one line until both elements carry epoch e; its 8 B of payload into d.
__device__ __forceinline__ bool ll_load(const void* line, int e, uint2& d, const Deadline& dl,
                                        unsigned long long tag) {
  uint64_t a = 0, b = 0;
  const bool ok = spin_until(
      [&] {
        ptx::ld_volatile_v2_u64(line, a, b);
        return static_cast<int>(a >> 32) == e && static_cast<int>(b >> 32) == e;
      },
      dl, tag);
  d = make_uint2(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
  return ok;
}
// 16 B of payload as two lines, and back.
__device__ __forceinline__ void ll_store16(void* two_lines, const uint4& v, int e) {
  ll_store(two_lines, make_uint2(v.x, v.y), e);
  ll_store(static_cast<char*>(two_lines) + LlSlot::kLineBytes, make_uint2(v.z, v.w), e);
}
__device__ __forceinline__ bool ll_load16(const void* two_lines, int e, uint4& v, const Deadline& dl,
                                          unsigned long long tag) {
  uint2 a, b;
  const bool ok = ll_load(two_lines, e, a, dl, tag) &&
                  ll_load(static_cast<const char*>(two_lines) + LlSlot::kLineBytes, e, b, dl, tag);
  v = make_uint4(a.x, a.y, b.x, b.y);
  return ok;
}

// ---- warps ----
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & 31; }
__device__ __forceinline__ unsigned lanes_below() { return (1u << lane_id()) - 1u; }

#endif  // __CUDACC__

}  // namespace pk::ep
