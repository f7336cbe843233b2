#pragma once
// High-throughput combine: the reverse of ht_dispatch, once per (token, rank) again.
//   1. For every token this rank received (its handle), the weighted partial sum of its
//      local experts' outputs, sum_q w_q * y[row_q] in fp32 rounded to bf16, stored into
//      the source's landing area [parity][this rank][token] (16-B register stores).
//   2. __syncthreads, then thread q < N sets flag [block][this rank] of rank q to the epoch
//      (st.release.sys: the block's stores before it go with it).
//   3. Every block waits for every flag of every rank (ld.acquire.sys), then __syncthreads.
//   4. Each token of this rank: the partials of the ranks holding its experts summed in
//      fp32, ranks in ascending order, rounded once to bf16.
// Landing areas alternate by epoch parity: a rank at launch e + 2 writes this parity again
// only after its launch e + 1 waited for this rank's flags of e + 1, i.e. after this rank
// finished launch e. Every rank flags every rank each launch, so a rank whose tokens go
// nowhere still keeps the others in step.
#include "kernels/ep/route.cuh"

namespace pk::ep {

struct HtCombineParams {
  const uint4* y;             // [rows][vecs] expert outputs in the per-expert layout
  const HandleEntry* handle;  // [N][slot_cap]
  const int* slots_in;        // [N] handle slots per source
  int slot_cap;
  PeerTable<uint4> landing;   // [2][N ranks][T][vecs] at every rank
  PeerTable<int> flags;       // [kEpMaxBlocks][N] at every rank
  const int32_t* topk;
  int tokens, topk_k, ranks, self, local_experts;
  int64_t vecs;
  uint4* out;                 // [T][vecs]
  KernelEpoch epoch;
  Deadline deadline;
};

#ifdef __CUDACC__

static __global__ void __launch_bounds__(512, 1) ht_combine_kernel(const __grid_constant__ HtCombineParams p) {
  const int N = p.ranks, warps = static_cast<int>(blockDim.x) / 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int e = begin_epoch(p.epoch), par = e & 1;
  const int64_t plane = int64_t(p.tokens) * p.vecs;
  partial_sums(p.y, p.handle, p.slots_in, p.slot_cap, N, p.vecs, blockIdx.x * warps + warp, gridDim.x * warps,
               [&](int s, int, int t, int64_t v, const uint4& val) {
                 ptx::st_v4(p.landing.at[s] + (int64_t(par) * N + p.self) * plane + int64_t(t) * p.vecs + v, val);
               });
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < N)
    ptx::st_release_sys(p.flags.at[threadIdx.x] + blockIdx.x * N + p.self, e);
  bool ok = true;
  for (int i = threadIdx.x; ok && i < static_cast<int>(gridDim.x) * N; i += blockDim.x)
    ok = wait_flag_geq_sys(p.flags.local() + i, e, p.deadline, kWaitPartial | static_cast<unsigned long long>(i % N) << 16);
  if (__syncthreads_and(ok)) {
    for (int t = blockIdx.x * warps + warp; t < p.tokens; t += gridDim.x * warps) {
      const unsigned ranks = rank_mask(load_route(p.topk, nullptr, t, p.topk_k), p.local_experts);
      for (int64_t v = lane_id(); v < p.vecs; v += 32) {
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int r = 0; r < N; ++r)
          if (ranks >> r & 1u)
            coll::add_vec<__nv_bfloat16>(acc, ptx::ld_v4(p.landing.local() + (int64_t(par) * N + r) * plane + int64_t(t) * p.vecs + v));
        ptx::st_v4(p.out + int64_t(t) * p.vecs + v, Bf16::pack(acc));
      }
    }
  }
  end_epoch(p.epoch, e);
}

#endif  // __CUDACC__

}  // namespace pk::ep
