#pragma once
// The same operations through NCCL 2.28's device API (nccl_device.h), as its LSA example
// kernels use it: every access asks ncclGetLsaPointer(window, offset, peer) for the
// address, which reads the window's flat base and 4-GiB stride from the window structure in
// global memory (nccl::utility::loadConst = __ldg) and adds peer * stride to the base's
// upper word: a table lookup per access, like NVSHMEM's, but no heap-base subtraction and
// no group synchronisation. Signals are user code on LSA memory (cuda::atomic_ref at system
// scope, the idiom NCCL's own barrier uses); the barrier is ncclLsaBarrierSession. NCCL has
// no quiet, fence or bulk put on LSA memory: a bulk LSA copy is user code, the PK register
// copy with a looked-up base.
#include <nccl.h>
#include <nccl_device.h>

#include <cuda/atomic>
#include <cstdint>

#include "kernels/spin_wait.cuh"
#include "kernels/primitives/chain.cuh"
#include "kernels/primitives/element_put.cuh"
#include "kernels/primitives/pingpong.cuh"

namespace pk::prim {

template <class T, bool Reg = false>
struct NcclPut {
  ncclWindow_t win;
  int peer;
  const T* src;
  uint64_t seed;  // Reg: the value is made in registers (element_put.cuh)
  __device__ void put(uint64_t first, uint32_t lane, uint32_t) const {
    const uint64_t i = first + lane;
    T* d = static_cast<T*>(ncclGetLsaPointer(win, i * sizeof(T), peer));
    if constexpr (Reg) *d = register_value(seed, i);
    else *d = src[i];
  }
  // NCCL has no quiet: the same fence.sc.sys as the PK rows.
  __device__ void complete() const { pk::ptx::fence_sc_sys(); }
  __device__ void finish() const {}
};

struct NcclLoad {
  ncclWindow_t win;
  int peer;
  __device__ uint64_t load(uint64_t idx) const {
    return ptx::ld_weak_u64(static_cast<const uint64_t*>(ncclGetLsaPointer(win, idx * sizeof(uint64_t), peer)));
  }
};

// Flag at byte offset flag_off, payload at data_off of a window; release store / acquire
// load at system scope through cuda::atomic_ref.
template <bool WithData>
struct NcclSide {
  ncclWindow_t win;
  size_t flag_off, data_off;
  int peer;
  const uint4* src;
  int partner;
  __device__ void send(int i) const {
    if constexpr (WithData) *static_cast<uint4*>(ncclGetLsaPointer(win, data_off, peer)) = src[i];
    cuda::atomic_ref<int, cuda::thread_scope_system> f(*static_cast<int*>(ncclGetLsaPointer(win, flag_off, peer)));
    f.store(i + 1, cuda::memory_order_release);
  }
  __device__ bool arrived(int i) const {
    cuda::atomic_ref<int, cuda::thread_scope_system> f(*static_cast<int*>(ncclGetLocalPointer(win, flag_off)));
    return f.load(cuda::memory_order_acquire) >= i + 1;
  }
  __device__ unsigned received(int i) const {
    if constexpr (WithData)
      return same_payload(ptx::ld_weak_v4(static_cast<const uint4*>(ncclGetLocalPointer(win, data_off))),
                          round_payload(i, partner))
                 ? 0u
                 : 1u;
    return 0u;
  }
};

// ncclLsaBarrierSession over the LSA team, one thread (ncclCoopThread), barrier index 0.
// arrive() stores epoch + 1 into this rank's slot of every peer's inbox (cuda::atomic_ref
// store, release for acq_rel, relaxed for relaxed); wait() spins on this rank's inbox until
// every peer's slot reached epoch + 1 (acquire / relaxed loads) and has no timeout, so we
// poll the same words first (volatile loads, bounded) and call wait() once they are there.
template <bool Relaxed>
__global__ void nccl_barrier_kernel(ncclDevComm comm, int iters, uint32_t* cycles, TimingRecord* rec, Deadline d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  constexpr cuda::memory_order kOrder = Relaxed ? cuda::memory_order_relaxed : cuda::memory_order_acq_rel;
  ncclLsaBarrierSession<ncclCoopThread> bar(ncclCoopThread(), comm, ncclTeamLsa(comm), comm.lsaBarrier, 0);
  sync::record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    bar.arrive(ncclCoopThread(), kOrder);
    const uint32_t want = bar.epoch + 1;
    const bool all_in = spin_until(
        [&] {
          for (int p = 0; p < bar.team.nRanks; ++p) {
            if (p == bar.team.rank) continue;
            const uint32_t got = *reinterpret_cast<volatile uint32_t*>(bar.ucInbox(bar.team.rank, p));
            if (got - want > (uint32_t(-1) >> 1)) return false;
          }
          return true;
        },
        d, kWaitBarrier);
    if (!all_in) return;
    bar.wait(ncclCoopThread(), kOrder);
    cycles[i] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
  }
  sync::record_end(rec);
}

// The window's address of `peer` (or this rank's own, peer < 0) as a device pointer, for
// the PK-style rows on NCCL's memory.
static __global__ void nccl_pointer_kernel(ncclWindow_t win, int peer, void** out) {
  *out = peer < 0 ? ncclGetLocalPointer(win, 0) : ncclGetLsaPointer(win, 0, peer);
}

}  // namespace pk::prim
