#pragma once
// NVSwitch multicast (NVLS) all-reduce and broadcast: multimem.ld_reduce reads every GPU's
// copy through one multicast address and returns the sum; multimem.st writes every copy.
// DANGER: multicast can put a shared host's GPUs out of service. These kernels are only
// reachable through the multicast implementation (microbench/collectives/multicast.cu),
// which refuses unless --allow-multicast is given, none of NCCL_NVLS_ENABLE=0,
// NVSHMEM_DISABLE_NVLS=1, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 is set, and the device reports
// multicast support; this build never creates a multicast object (no cuMulticastCreate),
// so they never run.
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

namespace mm {
__device__ __forceinline__ uint4 ld_reduce_add_bf16x8(const void* mc) {
  uint4 v;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.bf16x2 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(mc)
               : "memory");
  return v;
}
__device__ __forceinline__ void st_v4(void* mc, const uint4& v) {
  asm volatile("multimem.st.relaxed.sys.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(mc), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}
}  // namespace mm

struct MultimemParams {
  const __nv_bfloat16* in_mc;  // multicast address of the input
  __nv_bfloat16* out_mc;       // multicast address of the output
  SyncTable sync;              // unicast flags for the enter/leave barriers
  uint64_t count;
  int broadcast_root;          // >= 0: broadcast from this rank instead of all-reduce
};

// Rank r reduces chunk r through the switch and stores the sum to every GPU at once.
static __global__ void __launch_bounds__(512) multimem_all_reduce_kernel(const __grid_constant__ MultimemParams p) {
  constexpr int V = 8;
  const int n = p.sync.flags.size, self = p.sync.flags.self;
  const int e = begin_epoch(p.sync);
  if (!exchange(p.sync, kPhaseEnter, e)) return;
  const Chunk c = chunk_of(p.count, n, self, V);
  const Slice s = block_slice((c.hi - c.lo) / V, blockIdx.x, gridDim.x);
  for (uint64_t v = s.lo + threadIdx.x; v < s.hi; v += blockDim.x) {
    const uint64_t off = c.lo + v * V;
    const uint4 sum = p.broadcast_root >= 0 ? make_uint4(0, 0, 0, 0) : mm::ld_reduce_add_bf16x8(p.in_mc + off);
    mm::st_v4(p.out_mc + off, sum);
  }
  if (!exchange(p.sync, kPhaseLeave, e)) return;
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
