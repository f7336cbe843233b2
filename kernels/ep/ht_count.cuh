#pragma once
// High-throughput dispatch, step 1 of 2: the count exchange (one block).
//   1. This rank's tokens counted: per global expert, and per rank the tokens that go there
//      (each once).
//   2. To every rank r, r's row of the count matrix (its El experts' counts from this rank,
//      then the token count) as LL lines carrying this launch's epoch: no flag, no fence.
//   3. The send list, in the order the senders walk it: local expert j = 0, 1, ... and for
//      each the ranks from self + 1 on, the (token, expert) pairs of expert r * El + j; a
//      token goes when its first expert on r comes up (ht_dispatch.cuh), so every receiver
//      gets its low experts first and the links stay balanced.
//   4. Every source's row of this rank's matrix awaited; the receive layout written (counts,
//      aligned bases, tiles of the grouped GEMM) and the cursors and row-tile flags of the
//      data step zeroed.
// The matrix is double-buffered by epoch parity: a source that already runs launch e + 1
// writes the other half. It cannot reach launch e + 2 before this rank's launch e + 1 wrote
// its own row to it, i.e. after this launch (and the data step behind it) finished: so the
// exchange is also the barrier that keeps a fast source from pushing tokens into buffers this
// rank still reads. Its epoch (ctr) is the whole dispatch's: the data step reads it.
#include "kernels/ep/route.cuh"

namespace pk::ep {

struct HtCountParams {
  const int32_t* topk;
  int tokens, topk_k, experts, ranks, self, tiles_n;
  PeerTable<char> counts;  // [2 parities][N sources][count_lines] LL lines at every rank
  int2* send_list;         // T * TopK (token, expert) pairs in send order (this rank's)
  EpLayout layout;         // this rank's receive layout
  int* dest_cursor;        // [N] slots given out per destination (the data step's)
  int* expert_cursor;      // [El] rows given out per local expert
  int* tile_flags;         // [flag_count] rows landed per row tile (overlap; may be null)
  int flag_count;
  KernelEpoch epoch;
  Deadline deadline;
};

// LL lines of one row of the count matrix: El counts and the token count, two per line.
PK_EP_HD int count_lines(int local_experts) { return (local_experts + 2) / 2; }
// Shared memory of the count kernel: cnt[E], order[E], dcnt[N], in[N][El + 1], tot[El + 1], scratch[32].
PK_EP_HD int ht_count_smem_bytes(int experts, int ranks) {
  const int El = experts / ranks;
  return 4 * (2 * experts + ranks + ranks * (El + 1) + (El + 1) + 32);
}

#ifdef __CUDACC__

constexpr int kCountThreads = 1024;

static __global__ void __launch_bounds__(kCountThreads) ht_count_kernel(const __grid_constant__ HtCountParams p) {
  extern __shared__ int sm[];
  const int E = p.experts, N = p.ranks, El = E / N, K = p.topk_k, T = p.tokens;
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  int* cnt = sm;              // [E]
  int* order = cnt + E;       // [E]: counts in send order, then their offsets
  int* dcnt = order + E;      // [N]
  int* in = dcnt + N;         // [N][El + 1]
  int* tot = in + N * (El + 1);  // [El + 1]
  int* scratch = tot + El + 1;   // [32]
  const int e = begin_epoch(p.epoch);
  const int par = e & 1;
  const int lines = count_lines(El);

  for (int i = tid; i < E; i += threads) cnt[i] = 0;
  for (int i = tid; i < N; i += threads) dcnt[i] = 0;
  for (int i = tid; i < N; i += threads) p.dest_cursor[i] = 0;
  for (int i = tid; i < El; i += threads) p.expert_cursor[i] = 0;
  for (int i = tid; i < p.flag_count; i += threads) p.tile_flags[i] = 0;
  __syncthreads();
  count_tokens(p.topk, T, K, El, N, cnt, dcnt);
  __syncthreads();

  // 2. Rows of the matrix to every rank (this rank's too).
  for (int i = tid; i < N * lines; i += threads) {
    const int r = i / lines, l = i % lines;
    auto word = [&](int w) { return w < El ? cnt[r * El + w] : w == El ? dcnt[r] : 0; };
    char* line = p.counts.at[r] + ((int64_t(par) * N + p.self) * lines + l) * LlSlot::kLineBytes;
    ll_store(line, make_uint2(static_cast<uint32_t>(word(2 * l)), static_cast<uint32_t>(word(2 * l + 1))), e);
  }

  // 3. The send list: offsets of each expert's pairs in send order, then the pairs.
  for (int i = tid; i < E; i += threads) {
    const int j = i / N, q = i % N, r = (p.self + 1 + q) % N;
    order[i] = cnt[r * El + j];
  }
  __syncthreads();
  block_exclusive_scan(order, E, scratch);
  for (int i = tid; i < E; i += threads) {
    const int j = i / N, q = i % N, r = (p.self + 1 + q) % N;
    cnt[r * El + j] = order[i];  // cnt now holds each expert's next free place in the list
  }
  __syncthreads();
  for (int i = tid; i < T * K; i += threads) {
    const int ex = p.topk[i];
    p.send_list[atomicAdd(&cnt[ex], 1)] = make_int2(i / K, ex);
  }

  // 4. Every source's row, then the layout.
  bool ok = true;
  for (int i = tid; i < N * lines && ok; i += threads) {
    const int s = i / lines, l = i % lines;
    const char* line = p.counts.local() + ((int64_t(par) * N + s) * lines + l) * LlSlot::kLineBytes;
    uint2 d;
    ok = ll_load(line, e, d, p.deadline, kWaitCounts | static_cast<unsigned long long>(s) << 16);
    if (2 * l <= El) in[s * (El + 1) + 2 * l] = static_cast<int>(d.x);
    if (2 * l + 1 <= El) in[s * (El + 1) + 2 * l + 1] = static_cast<int>(d.y);
  }
  if (__syncthreads_and(ok)) {
    for (int j = tid; j < El; j += threads) {
      int sum = 0;
      for (int s = 0; s < N; ++s) sum += in[s * (El + 1) + j];
      tot[j] = sum;
    }
    for (int s = tid; s < N; s += threads) p.layout.slots_in[s] = in[s * (El + 1) + El];
    __syncthreads();
    write_layout(tot, El, p.tiles_n, p.layout, order, scratch);
  }
  end_epoch(p.epoch, e);
}

#endif  // __CUDACC__

}  // namespace pk::ep
