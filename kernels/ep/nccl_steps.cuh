#pragma once
// The kernels of the NCCL baseline: what a framework without DeepEP runs around NCCL's
// all-to-all(-v) (Megatron's all-to-all token dispatcher does the same steps), each token
// once per rank as in our kernels, so both move the same bytes.
//   dispatch  count (one block: per-expert and per-rank counts, the send offsets) ->
//             ncclAllToAll of the counts -> pack (each token once per destination rank into
//             the send buffer, its TokenHeader in front) -> ncclSend/ncclRecv per peer ->
//             permute (the received tokens fanned out into the per-expert layout, the
//             handle filled; the layout from the exchanged counts)
//   combine   pack (each received token's weighted partial sum into the reverse send
//             buffer, in the order it came) -> ncclSend/ncclRecv per peer -> reduce (each
//             token's partials summed in fp32, ranks ascending)
// A send-buffer row is the TokenHeader (64 B) then the token's H values.
#include "kernels/ep/route.cuh"

namespace pk::ep {

struct NcclStepParams {
  const uint4* x;
  const int32_t* topk;
  const float* w;
  int tokens, topk_k, experts, ranks, self, tiles_n;
  int64_t vecs;
  int* send_counts;   // [N][El + 1]: to rank r, r's experts' counts, then the tokens sent to r
  const int* recv_counts;  // [N][El + 1]: the same from every source (after ncclAllToAll)
  int* send_off;      // [N] first send row per destination
  int* dest_cursor;   // [N]
  int* expert_cursor; // [El]
  int* slot_of;       // [T][N] the send slot of token t at rank r (its combine row)
  uint4* send_rows;   // [rows][4 + vecs]
  const uint4* recv_rows;
  EpLayout layout;
  uint4* recv;
  int32_t* row_src;
  HandleEntry* handle;  // [N][slot_cap]
  int slot_cap;
  const uint4* y;
  uint4* comb_send;   // [rows][vecs]
  const uint4* comb_recv;
  uint4* out;
  Deadline deadline;
};

#ifdef __CUDACC__

// Row offsets of each source's tokens in the receive buffer, from the exchanged counts.
__device__ __forceinline__ int recv_offset(const NcclStepParams& p, int s) {
  const int El = p.experts / p.ranks;
  int off = 0;
  for (int q = 0; q < s; ++q) off += p.recv_counts[q * (El + 1) + El];
  return off;
}

static __global__ void __launch_bounds__(1024) nccl_count_kernel(const __grid_constant__ NcclStepParams p) {
  extern __shared__ int sm[];
  const int E = p.experts, N = p.ranks, El = E / N;
  int* cnt = sm;
  int* dcnt = cnt + E;
  for (int i = threadIdx.x; i < E; i += blockDim.x) cnt[i] = 0;
  for (int i = threadIdx.x; i < N; i += blockDim.x) {
    dcnt[i] = 0;
    p.dest_cursor[i] = 0;
  }
  for (int i = threadIdx.x; i < El; i += blockDim.x) p.expert_cursor[i] = 0;
  __syncthreads();
  count_tokens(p.topk, p.tokens, p.topk_k, El, N, cnt, dcnt);
  __syncthreads();
  for (int i = threadIdx.x; i < N * (El + 1); i += blockDim.x) {
    const int r = i / (El + 1), j = i % (El + 1);
    p.send_counts[i] = j < El ? cnt[r * El + j] : dcnt[r];
  }
  if (threadIdx.x == 0) {
    int off = 0;
    for (int r = 0; r < N; ++r) {
      p.send_off[r] = off;
      off += dcnt[r];
    }
  }
}

static __global__ void __launch_bounds__(512) nccl_pack_kernel(const __grid_constant__ NcclStepParams p) {
  const int N = p.ranks, El = p.experts / N;
  const int warps = blockDim.x / 32, gw = blockIdx.x * warps + threadIdx.x / 32, nw = gridDim.x * warps;
  const int64_t row_vecs = 4 + p.vecs;
  for (int t = gw; t < p.tokens; t += nw) {
    const LaneRoute lr = load_route(p.topk, p.w, t, p.topk_k);
    const unsigned ranks = rank_mask(lr, El);
    for (int r = 0; r < N; ++r) {
      if (!(ranks >> r & 1u)) continue;
      const unsigned members = lanes_on(lr, El, r);
      int k = 0;
      if (lane_id() == 0) {
        k = atomicAdd(&p.dest_cursor[r], 1);
        p.slot_of[int64_t(t) * N + r] = k;
      }
      k = __shfl_sync(0xffffffffu, k, 0);
      uint4* row = p.send_rows + (int64_t(p.send_off[r]) + k) * row_vecs;
      const uint4 hv = header_vector(header_word(lr, members, t, El));
      if (lane_id() < 4) ptx::st_v4(row + lane_id(), hv);
      coll::copy_vectors(row + 4, p.x + int64_t(t) * p.vecs, uint64_t(p.vecs), static_cast<uint32_t>(lane_id()), 32u);
    }
  }
}

static __global__ void __launch_bounds__(512) nccl_permute_kernel(const __grid_constant__ NcclStepParams p) {
  extern __shared__ int sm[];
  const int N = p.ranks, El = p.experts / N;
  int* tot = sm;                  // [El + 1] rows per local expert
  int* base = tot + El + 1;       // [El + 1] their aligned regions
  int* tmp = base + El + 1;       // [El + 1]
  int* scratch = tmp + El + 1;    // [32]
  for (int j = threadIdx.x; j < El; j += blockDim.x) {
    int sum = 0;
    for (int s = 0; s < N; ++s) sum += p.recv_counts[s * (El + 1) + j];
    tot[j] = sum;
    base[j] = static_cast<int>(align_rows(sum));
  }
  __syncthreads();
  // Every block derives the regions (a few hundred integers); block 0 also stores the layout.
  block_exclusive_scan(base, El, scratch);
  if (blockIdx.x == 0) {
    write_layout(tot, El, p.tiles_n, p.layout, tmp, scratch);
    for (int s = threadIdx.x; s < N; s += blockDim.x) p.layout.slots_in[s] = p.recv_counts[s * (El + 1) + El];
  }
  const int warps = blockDim.x / 32, gw = blockIdx.x * warps + threadIdx.x / 32, nw = gridDim.x * warps;
  const int64_t row_vecs = 4 + p.vecs;
  int most = 0;
  for (int s = 0; s < N; ++s) most = max(most, p.recv_counts[s * (El + 1) + El]);
  for (int i = gw; i < N * most; i += nw) {
    const int s = i % N, k = i / N;
    if (k >= p.recv_counts[s * (El + 1) + El]) continue;
    const uint4* row = p.recv_rows + (int64_t(recv_offset(p, s)) + k) * row_vecs;
    const uint4 hv = lane_id() < 4 ? ptx::ld_v4(row + lane_id()) : make_uint4(0, 0, 0, 0);
    const Received h = read_header(word_of_vectors(hv));
    const int r = assign_row(h, s, p.expert_cursor, base, tot, 0, p.row_src, p.handle + int64_t(s) * p.slot_cap + k,
                             p.deadline);
    int rows[kMaxTopK];
#pragma unroll
    for (int q = 0; q < kMaxTopK; ++q) rows[q] = __shfl_sync(0xffffffffu, r, q);
    fan_copy(row + 4, p.recv, rows, min(h.n, kMaxTopK), p.vecs);
  }
}

// Shared memory of nccl_permute_kernel: tot, base, tmp (El + 1 each), scratch (32).
PK_EP_HD int nccl_permute_smem_bytes(int local_experts) { return 4 * (3 * (local_experts + 1) + 32); }
// Shared memory of nccl_count_kernel: cnt (E), dcnt (N).
PK_EP_HD int nccl_count_smem_bytes(int experts, int ranks) { return 4 * (experts + ranks); }

// Each received token's partial sum into the reverse send buffer, in the row it came in.
static __global__ void __launch_bounds__(512) nccl_combine_pack_kernel(const __grid_constant__ NcclStepParams p) {
  const int N = p.ranks;
  const int warps = blockDim.x / 32, gw = blockIdx.x * warps + threadIdx.x / 32, nw = gridDim.x * warps;
  partial_sums(p.y, p.handle, p.layout.slots_in, p.slot_cap, N, p.vecs, gw, nw,
               [&](int s, int k, int, int64_t v, const uint4& val) {
                 ptx::st_v4(p.comb_send + (int64_t(recv_offset(p, s)) + k) * p.vecs + v, val);
               });
}

// Each token's partials (from the ranks holding its experts, in the rows it was sent from)
// summed in fp32, ranks ascending.
static __global__ void __launch_bounds__(512) nccl_combine_reduce_kernel(const __grid_constant__ NcclStepParams p) {
  const int N = p.ranks, El = p.experts / N;
  const int warps = blockDim.x / 32, gw = blockIdx.x * warps + threadIdx.x / 32, nw = gridDim.x * warps;
  for (int t = gw; t < p.tokens; t += nw) {
    const unsigned ranks = rank_mask(load_route(p.topk, nullptr, t, p.topk_k), El);
    for (int64_t v = lane_id(); v < p.vecs; v += 32) {
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int r = 0; r < N; ++r)
        if (ranks >> r & 1u) {
          const int64_t row = int64_t(p.send_off[r]) + p.slot_of[int64_t(t) * N + r];
          coll::add_vec<__nv_bfloat16>(acc, ptx::ld_v4(p.comb_recv + row * p.vecs + v));
        }
      ptx::st_v4(p.out + int64_t(t) * p.vecs + v, Bf16::pack(acc));
    }
  }
}

#endif  // __CUDACC__

}  // namespace pk::ep
