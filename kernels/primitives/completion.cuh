#pragma once
// What completing a put costs: one thread, each iteration one 4-B store to the peer and
// then the style's completion call, timed with clock64. The style is a policy with
// put1(i) (element i) and complete(). PK's equivalents of NVSHMEM's calls:
//   quiet -> fence.sc.sys      (what nvshmem_quiet issues on NVLink)
//   fence -> fence.acq_rel.sys (ordering only; nvshmem_fence issues fence.sc.sys too)
//   none  -> nothing: the bare store, the baseline both are measured against.
#include <cstdint>

#include "kernels/primitives/element_put.cuh"

namespace pk::prim {

template <class Policy>
__global__ void completion_kernel(const Policy p, int iters, uint32_t* cycles, TimingRecord* rec) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  sync::record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    p.put1(i);
    p.complete();
    cycles[i] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
  }
  sync::record_end(rec);
}

enum class PkCompletion { none, fence_sc_sys, fence_acq_rel_sys };

template <PkCompletion C>
struct PkComplete {
  uint32_t* peer;
  const uint32_t* src;
  __device__ void put1(int i) const { peer[i] = src[i]; }
  __device__ void complete() const {
    if constexpr (C == PkCompletion::fence_sc_sys) pk::ptx::fence_sc_sys();
    else if constexpr (C == PkCompletion::fence_acq_rel_sys) pk::ptx::fence_acq_rel_sys();
  }
};

}  // namespace pk::prim
