#pragma once
// The same operations through NVSHMEM's public device API (headers read: 3.8.0). Compiled only into the
// relocatable-device-code library of the NVSHMEM style (libnvshmem_device.a is linked at
// device-link time). What the calls do on NVLink (read from the 3.8 headers; P2P path,
// no TMA registration, job connectivity <= NVSHMEMI_JOB_GPU_LDST):
//   nvshmem_int_p            __ldg(peer_heap_base_p2p + pe) (the heap table, global memory),
//                            heap-offset arithmetic, one plain (weak) st.global
//   nvshmem[x]_*_put[_nbi]   the same lookup, the group's sync before and after (none for a
//                            thread; __syncwarp / __syncthreads), a check for a TMA shared-
//                            memory registration, then nvshmemi_memcpy_threadgroup: the
//                            group's threads copy with the widest aligned plain loads/stores
//   nvshmem_uint64_g         the lookup, then one plain (weak) ld.global
//   nvshmemx_signal_op SET   the lookup, one volatile st.u64 (no fence)
//                      ADD   the lookup, atomicAdd_system (relaxed atom.add.sys, no fence)
//   nvshmem_putmem_signal_nbi  the put, the group's sync, __threadfence_system
//                            (fence.sc.sys), then the signal op: ordered data-then-flag
//   nvshmem_signal_wait_until  a volatile poll loop with no timeout (NVSHMEM_TIMEOUT_DEVICE_
//   nvshmem_uint64_wait_until  POLLING is off in the wheel), then nvshmemi_transfer_syncapi_
//                            update_mem: a non-inlined call doing __threadfence (fence.sc.gpu);
//                            signal_wait_until then loads the word once more to return it
//   nvshmem_quiet / nvshmem_fence  a TMA-drain check, then __threadfence_system (fence.sc.sys)
//   nvshmem_barrier_all      quiet (fence.sc.sys), then a dissemination barrier: volatile
//                            stores into the peers' psync words, volatile polls, no timeout
//   nvshmem_sync_all         the dissemination barrier alone
// The signal rows wait with the library's call alone, as its perftests do, behind a bounded
// handshake (NvshmemSide); the barrier is preceded by one (nvshmem_barrier_kernel). A
// missing partner ends the kernel with a timeout instead of hanging the GPU.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>

#include "kernels/spin_wait.cuh"
#include "kernels/primitives/bulk_put.cuh"
#include "kernels/primitives/completion.cuh"
#include "kernels/primitives/chain.cuh"
#include "kernels/primitives/element_put.cuh"
#include "kernels/primitives/pingpong.cuh"

namespace pk::prim {

// ---- element-wise put: one thread's element, or a group's [first, first + G) ----
__device__ __forceinline__ void nvshmem_thread_put(uint32_t* d, const uint32_t* s, int pe, bool nbi) {
  if (nbi) nvshmem_uint_put_nbi(d, s, 1, pe);
  else nvshmem_uint_p(d, *s, pe);
}
__device__ __forceinline__ void nvshmem_thread_put(uint4* d, const uint4* s, int pe, bool nbi) {
  if (nbi) nvshmem_put128_nbi(d, s, 1, pe);
  else nvshmem_put128(d, s, 1, pe);
}
template <Scope S>
__device__ __forceinline__ void nvshmem_group_put(uint32_t* d, const uint32_t* s, size_t n, int pe, bool nbi) {
  if constexpr (S == Scope::warp) {
    if (nbi) nvshmemx_uint_put_nbi_warp(d, s, n, pe);
    else nvshmemx_uint_put_warp(d, s, n, pe);
  } else {
    if (nbi) nvshmemx_uint_put_nbi_block(d, s, n, pe);
    else nvshmemx_uint_put_block(d, s, n, pe);
  }
}
template <Scope S>
__device__ __forceinline__ void nvshmem_group_put(uint4* d, const uint4* s, size_t n, int pe, bool nbi) {
  if constexpr (S == Scope::warp) {
    if (nbi) nvshmemx_put128_nbi_warp(d, s, n, pe);
    else nvshmemx_put128_warp(d, s, n, pe);
  } else {
    if (nbi) nvshmemx_put128_nbi_block(d, s, n, pe);
    else nvshmemx_put128_block(d, s, n, pe);
  }
}

template <class T, Scope S, bool Nbi>
struct NvshmemPut {
  T* dst;  // symmetric address; the library translates it for `pe`
  const T* src;
  int pe;
  uint64_t seed;  // unused (see NvshmemPutReg)
  __device__ void put(uint64_t first, uint32_t lane, uint32_t G) const {
    if constexpr (S == Scope::thread) nvshmem_thread_put(dst + first + lane, src + first + lane, pe, Nbi);
    else nvshmem_group_put<S>(dst + first, src + first, G, pe, Nbi);
  }
  __device__ void complete() const { nvshmem_quiet(); }
  // As shmem_p_bw ends its passes: the block's puts, then one quiet.
  __device__ void finish() const {
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
  }
};

// nvshmem_uint_p with the value made in registers (element_put.cuh): the element-wise API
// on its own, no source load.
struct NvshmemPutReg {
  uint32_t* dst;
  const uint32_t* src;  // unused
  int pe;
  uint64_t seed;
  __device__ void put(uint64_t first, uint32_t lane, uint32_t) const {
    const uint64_t i = first + lane;
    nvshmem_uint_p(dst + i, register_value(seed, i), pe);
  }
  __device__ void complete() const { nvshmem_quiet(); }
  __device__ void finish() const {
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
  }
};

// ---- get: nvshmem_uint64_g per hop ----
struct NvshmemLoad {
  const uint64_t* sym;
  int pe;
  __device__ uint64_t load(uint64_t idx) const { return nvshmem_uint64_g(sym + idx, pe); }
};

// ---- one element put alone, or followed by quiet / fence ----
enum class NvshmemCompletion { none, quiet, fence };

template <NvshmemCompletion C>
struct NvshmemComplete {
  uint32_t* dst;
  const uint32_t* src;
  int pe;
  __device__ void put1(int i) const { nvshmem_uint_p(dst + i, src[i], pe); }
  __device__ void complete() const {
    if constexpr (C == NvshmemCompletion::quiet) nvshmem_quiet();
    else if constexpr (C == NvshmemCompletion::fence) nvshmem_fence();
  }
};

// ---- signals ----
enum class NvshmemSignal { set, add, put_signal };

// Wait: ApiWait (the headline rows) waits with nvshmem_uint64_wait_until(EQ) alone, the call
// NVSHMEM's perftests wait with (shmem_signal_ping_pong_latency, shmem_put_signal_ping_pong_latency;
// their timing differs: events around the whole kernel, a round trip);
// the wait cannot time out, so both PEs first meet on `meet` with a bounded wait (a missing
// partner ends the kernel before the first library wait). Otherwise (the labelled
// bounded-poll variant, and the lonely wait) our bounded poll of the same word comes first
// and nvshmem_signal_wait_until then returns at its first load: one more load and fence per
// receive than the API alone.
template <NvshmemSignal K, bool ApiWait>
struct NvshmemSide {
  static constexpr bool kApiWait = ApiWait;
  uint64_t* sig;  // symmetric: this PE's word, and (with pe) the partner's
  uint64_t* meet;  // symmetric: the bounded handshake before an ApiWait loop
  uint4* data;    // symmetric 16-B payload slot
  const uint4* src;
  int pe;
  int partner;
  __device__ bool meet_partner(const Deadline& d) const {
    nvshmemx_signal_op(meet, 1, NVSHMEM_SIGNAL_SET, pe);
    return spin_until([&] { return *reinterpret_cast<volatile uint64_t*>(meet) >= 1; }, d, kWaitFlag);
  }
  __device__ void send(int i) const {
    if constexpr (K == NvshmemSignal::set) nvshmemx_signal_op(sig, uint64_t(i + 1), NVSHMEM_SIGNAL_SET, pe);
    else if constexpr (K == NvshmemSignal::add) nvshmemx_signal_op(sig, 1, NVSHMEM_SIGNAL_ADD, pe);
    else nvshmem_putmem_signal_nbi(data, src + i, sizeof(uint4), sig, uint64_t(i + 1), NVSHMEM_SIGNAL_SET, pe);
  }
  // The bounded-poll variant's poll: the same volatile load the library's wait spins on.
  __device__ bool arrived(int i) const { return *reinterpret_cast<volatile uint64_t*>(sig) >= uint64_t(i + 1); }
  __device__ unsigned received(int i) const {
    if constexpr (ApiWait) nvshmem_uint64_wait_until(sig, NVSHMEM_CMP_EQ, uint64_t(i + 1));
    else nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, uint64_t(i + 1));  // returns at its first load
    if constexpr (K == NvshmemSignal::put_signal)
      return same_payload(ptx::ld_weak_v4(data), round_payload(i, partner)) ? 0u : 1u;
    return 0u;
  }
};

// ---- barrier: nvshmem_barrier_all / nvshmem_sync_all, after a bounded handshake ----
// The library's barrier cannot time out. Both PEs first meet on `hello` (a symmetric word)
// with a bounded wait: a missing partner ends the kernel before the first library barrier.
template <bool SyncOnly>
__global__ void nvshmem_barrier_kernel(uint64_t* hello, uint64_t generation, int pe, int iters, uint32_t* cycles,
                                       TimingRecord* rec, Deadline d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  nvshmemx_signal_op(hello, generation, NVSHMEM_SIGNAL_SET, pe);
  if (!spin_until([&] { return *reinterpret_cast<volatile uint64_t*>(hello) >= generation; }, d, kWaitBarrier)) return;
  sync::record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    if constexpr (SyncOnly) nvshmem_sync_all();
    else nvshmem_barrier_all();
    cycles[i] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
  }
  sync::record_end(rec);
}

// ---- bulk: putmem_nbi / putmem_signal_nbi (signal ADD 1 per message) at warp/block scope ----
template <Scope S, bool Signal>
__global__ void nvshmem_bulk_kernel(char* dst, const char* src, uint32_t msg_bytes, uint64_t n_msgs, uint64_t* sig,
                                    int pe) {
  static_assert(S != Scope::thread, "bulk puts are issued by a warp or a block");
  const uint32_t G = S == Scope::warp ? 32u : blockDim.x;
  const uint64_t per_block = blockDim.x / G;
  const uint64_t groups = uint64_t(gridDim.x) * per_block;
  const uint64_t group = uint64_t(blockIdx.x) * per_block + threadIdx.x / G;
  for (uint64_t m = group; m < n_msgs; m += groups) {
    char* d = dst + m * msg_bytes;
    const char* s = src + m * msg_bytes;
    if constexpr (S == Scope::warp) {
      if constexpr (Signal) nvshmemx_putmem_signal_nbi_warp(d, s, msg_bytes, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
      else nvshmemx_putmem_nbi_warp(d, s, msg_bytes, pe);
    } else {
      if constexpr (Signal) nvshmemx_putmem_signal_nbi_block(d, s, msg_bytes, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
      else nvshmemx_putmem_nbi_block(d, s, msg_bytes, pe);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) nvshmem_quiet();
}

}  // namespace pk::prim
