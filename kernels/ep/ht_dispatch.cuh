#pragma once
// High-throughput dispatch, step 2 of 2: every token once to each rank holding one of its
// experts, with register copies (16-B vectors) straight into that rank's memory; the receiver
// fans it out into its per-expert layout as it lands. The epoch is the count exchange's
// (ht_count.cuh), which ran just before in stream order.
//
// Warps of a block play two roles at once, so that tokens are fanned out while others still
// travel: senders (three quarters) and receivers (a quarter, at least one).
//   sender    walks the send list (ht_count.cuh: local expert j by j, ranks from self + 1 on);
//             for a pair (t, e) whose e is t's first expert on rank r: a slot k of r's landing
//             area for this source (atomic cursor), the token's H values and its TokenHeader
//             stored into slot k, then the slot's flag set to the epoch with st.release.sys
//             after __syncwarp (the lanes' stores are ordered before the release).
//   receiver  takes the landed slots (source s, slot k < the count this rank got from s) in
//             arrival order (k-major over the sources); waits for the flag with ld.acquire.sys,
//             __syncwarp, then copies the token to one row per local expert (atomic cursor per
//             expert) and fills the handle. With row-tile flags (the overlapped GEMM), each row
//             adds 1 to its tile's flag with red.release.gpu after __syncwarp.
// A source's slots at a rank are written only in a launch that follows that rank's count row
// of the same launch (the exchange): the rank finished reading them in the launch before.
// Every wait is bounded; a rank that receives nothing waits for nothing.
#include "kernels/ep/route.cuh"

namespace pk::ep {

struct HtDispatchParams {
  const uint4* x;  // [T][vecs] this rank's tokens
  const int32_t* topk;
  const float* w;
  int tokens, topk_k, ranks, self, local_experts;
  int64_t vecs;              // 16-B vectors per token (H / 8)
  const int2* send_list;     // ht_count.cuh
  int send_items;            // T * TopK
  PeerTable<uint4> staging;  // [N sources][slot_cap][vecs] at every rank
  PeerTable<uint4> headers;  // [N sources][slot_cap] TokenHeader (4 vectors each)
  PeerTable<int> flags;      // [N sources][slot_cap]
  int slot_cap;              // T
  int* dest_cursor;
  int* expert_cursor;
  EpLayout layout;
  uint4* recv;               // [rows][vecs] the per-expert layout
  int32_t* row_src;
  HandleEntry* handle;       // [N sources][slot_cap]
  int* tile_flags;           // row-tile flags (nullptr: no overlapped GEMM)
  const int* epoch;          // the count exchange's epoch counter
  Deadline deadline;
};

#ifdef __CUDACC__

// Receivers per block of `warps` warps.
__host__ __device__ constexpr int ht_receivers(int warps) { return warps / 4 > 0 ? warps / 4 : 1; }

__device__ __forceinline__ bool status_failed(const Deadline& d) {
  return d.status && *reinterpret_cast<volatile int*>(&d.status->code) != kStatusOk;
}

__device__ __forceinline__ void ht_send(const HtDispatchParams& p, int e, int first, int stride) {
  const int El = p.local_experts;
  for (int i = first; i < p.send_items; i += stride) {
    const int2 item = p.send_list[i];
    const int t = item.x, ex = item.y, r = ex / El;
    const LaneRoute lr = load_route(p.topk, p.w, t, p.topk_k);
    const unsigned members = lanes_on(lr, El, r);
    // The pair sends only for the token's first expert on r (the list walks experts up).
    const int first_on_r = __reduce_min_sync(0xffffffffu, (members >> lane_id()) & 1u ? lr.expert : INT_MAX);
    if (first_on_r != ex) continue;
    int k = 0;
    if (lane_id() == 0) k = atomicAdd(&p.dest_cursor[r], 1);
    k = __shfl_sync(0xffffffffu, k, 0);
    if (k >= p.slot_cap) {  // more tokens for r than the exchange said: a bug, reported
      if (lane_id() == 0) report_status(p.deadline.status, kStatusBadConfig, 0xE100ull | uint64_t(r) << 16);
      continue;
    }
    const int64_t slot = int64_t(p.self) * p.slot_cap + k;
    const uint4 hv = header_vector(header_word(lr, members, t, El));
    if (lane_id() < 4) ptx::st_v4(p.headers.at[r] + slot * 4 + lane_id(), hv);
    coll::copy_vectors(p.staging.at[r] + slot * p.vecs, p.x + int64_t(t) * p.vecs, uint64_t(p.vecs),
                       static_cast<uint32_t>(lane_id()), 32u);
    __syncwarp();
    if (lane_id() == 0) ptx::st_release_sys(p.flags.at[r] + slot, e);
  }
}

__device__ __forceinline__ bool ht_receive(const HtDispatchParams& p, int e, int first, int stride) {
  const int N = p.ranks;
  int most = 0;
  for (int s = 0; s < N; ++s) most = max(most, p.layout.slots_in[s]);
  for (int i = first; i < N * most; i += stride) {
    const int s = i % N, k = i / N;
    if (k >= p.layout.slots_in[s]) continue;
    const int64_t slot = int64_t(s) * p.slot_cap + k;
    bool ok = true;
    if (lane_id() == 0)
      ok = wait_flag_geq_sys(p.flags.local() + slot, e, p.deadline, kWaitToken | static_cast<unsigned long long>(s) << 16);
    if (!__shfl_sync(0xffffffffu, ok, 0)) return false;
    __syncwarp();
    const uint4 hv = lane_id() < 4 ? ptx::ld_v4(p.headers.local() + slot * 4 + lane_id()) : make_uint4(0, 0, 0, 0);
    const Received h = read_header(word_of_vectors(hv));
    const int row = assign_row(h, s, p.expert_cursor, p.layout.base, p.layout.count, 0, p.row_src, p.handle + slot,
                               p.deadline);
    int rows[kMaxTopK];
#pragma unroll
    for (int q = 0; q < kMaxTopK; ++q) rows[q] = __shfl_sync(0xffffffffu, row, q);
    const int n = min(h.n, kMaxTopK);
    fan_copy(p.staging.local() + slot * p.vecs, p.recv, rows, n, p.vecs);
    if (p.tile_flags) {
      __syncwarp();
      if (lane_id() < n && row >= 0) ptx::red_release_gpu_add(p.tile_flags + row / kRowAlign, 1);
    }
  }
  return true;
}

// The data step for communication block `block` of `blocks` (the standalone kernel's blocks,
// or the overlapped GEMM's communicator blocks).
__device__ __forceinline__ void ht_dispatch_block(const HtDispatchParams& p, int block, int blocks) {
  if (status_failed(p.deadline)) return;  // the count exchange timed out: nothing to wait for
  const int e = ptx::ld_relaxed_gpu(p.epoch);
  const int warps = static_cast<int>(blockDim.x) / 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int R = ht_receivers(warps), S = warps - R;
  if (warp < S) ht_send(p, e, block * S + warp, blocks * S);
  else ht_receive(p, e, block * R + (warp - S), blocks * R);
}

static __global__ void __launch_bounds__(512, 1) ht_dispatch_kernel(const __grid_constant__ HtDispatchParams p) {
  ht_dispatch_block(p, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
}

#endif  // __CUDACC__

}  // namespace pk::ep
