#pragma once
// Low-latency dispatch: one kernel, no count exchange, no barrier. Every rank writes, for
// each of its tokens t and every rank r, the slot [parity][self][t] of r's landing area as
// LL lines (ep_sync.cuh: each 8-B element carries its 4 B of payload and the epoch): line 0
// of the header always (n = 0 when none of t's experts is on r), the rest of the header and
// the token's values only when t goes to r. The receiver polls line 0 of every (source,
// token) slot, and for the tokens that came, their lines; each landed 16 B is stored into one
// row per local expert, rows taken from per-expert cursors in fixed regions of `cap` rows
// (region j at j * cap: a fixed maximum per expert, so nothing is exchanged before).
// Every slot is written every launch: a rank that receives nothing still sees n = 0 from
// every source, and a rank's launch ends only after every source's launch of the same epoch
// wrote to it, so no source reaches launch e + 2 (which writes this parity again) while a
// rank still reads launch e's lines. The cursors alternate by parity too: launch e zeroes the
// other parity's, for launch e + 1; the last block to finish publishes the counts.
#include "kernels/ep/route.cuh"

namespace pk::ep {

struct LlDispatchParams {
  const uint4* x;
  const int32_t* topk;
  const float* w;
  int tokens, topk_k, ranks, self, local_experts;
  int64_t vecs;
  PeerTable<char> landing;  // [2][N sources][T] slots of LlSlot::bytes(H) at every rank
  int64_t slot_bytes;
  int cap;                  // rows per expert region
  int* cursors;             // [2][El]
  EpLayout layout;
  uint4* recv;
  int32_t* row_src;
  HandleEntry* handle;      // [N][T]
  KernelEpoch epoch;
  Deadline deadline;
};

#ifdef __CUDACC__

static __global__ void __launch_bounds__(512, 1) ll_dispatch_kernel(const __grid_constant__ LlDispatchParams p) {
  const int N = p.ranks, T = p.tokens, El = p.local_experts;
  const int warps = static_cast<int>(blockDim.x) / 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int gw = blockIdx.x * warps + warp, nw = gridDim.x * warps;
  const int e = begin_epoch(p.epoch), par = e & 1;
  if (blockIdx.x == 0)
    for (int j = threadIdx.x; j < El; j += blockDim.x) p.cursors[(par ^ 1) * El + j] = 0;
  auto slot_at = [&](const char* base, int src, int t) {
    return base + ((int64_t(par) * N + src) * T + t) * p.slot_bytes;
  };

  // Send: (token, rank) pairs, token-major, each token's ranks from self + 1 on.
  for (int i = gw; i < T * N; i += nw) {
    const int t = i / N, r = (p.self + 1 + i % N) % N;
    const LaneRoute lr = load_route(p.topk, p.w, t, p.topk_k);
    const unsigned members = lanes_on(lr, El, r);
    const uint32_t word = header_word(lr, members, t, El);
    // Lane L < 8 holds the header's line L: words 2L and 2L + 1.
    const uint32_t lo = __shfl_sync(0xffffffffu, word, (2 * lane_id()) & 31);
    const uint32_t hi = __shfl_sync(0xffffffffu, word, (2 * lane_id() + 1) & 31);
    char* slot = const_cast<char*>(slot_at(p.landing.at[r], p.self, t));
    const int header_lines = members ? static_cast<int>(LlSlot::kHeaderLines) : 1;
    if (lane_id() < header_lines) ll_store(slot + lane_id() * LlSlot::kLineBytes, make_uint2(lo, hi), e);
    if (!members) continue;
    char* data = slot + LlSlot::kHeaderLines * LlSlot::kLineBytes;
    for (int64_t v = lane_id(); v < p.vecs; v += 32)
      ll_store16(data + v * 2 * LlSlot::kLineBytes, ptx::ld_v4(p.x + int64_t(t) * p.vecs + v), e);
  }

  // Receive: (source, token) slots, token-major (the order the sources write them).
  bool ok = true;
  for (int i = gw; ok && i < T * N; i += nw) {
    const int t = i / N, s = i % N;
    const char* slot = slot_at(p.landing.local(), s, t);
    const unsigned long long tag = kWaitToken | static_cast<unsigned long long>(s) << 16;
    uint2 line = make_uint2(0, 0);
    bool mine = true;
    if (lane_id() == 0) mine = ll_load(slot, e, line, p.deadline, tag);
    const int n = static_cast<int>(__shfl_sync(0xffffffffu, line.y, 0));
    if (!__all_sync(0xffffffffu, mine)) {
      ok = false;
      break;
    }
    HandleEntry* entry = p.handle + int64_t(s) * T + t;
    if (n == 0) {
      if (lane_id() == 0) entry->n = 0;
      continue;
    }
    if (lane_id() > 0 && lane_id() < LlSlot::kHeaderLines)
      mine = ll_load(slot + lane_id() * LlSlot::kLineBytes, e, line, p.deadline, tag);
    if (!__all_sync(0xffffffffu, mine)) {
      ok = false;
      break;
    }
    // Word L of the header: element L % 2 of line L / 2.
    const uint32_t a = __shfl_sync(0xffffffffu, line.x, (lane_id() & 15) / 2);
    const uint32_t b = __shfl_sync(0xffffffffu, line.y, (lane_id() & 15) / 2);
    const Received h = read_header(lane_id() & 1 ? b : a);
    const int row = assign_row(h, s, p.cursors + par * El, nullptr, nullptr, p.cap, p.row_src, entry, p.deadline);
    int rows[kMaxTopK];
#pragma unroll
    for (int q = 0; q < kMaxTopK; ++q) rows[q] = __shfl_sync(0xffffffffu, row, q);
    const int nn = min(h.n, kMaxTopK);
    const char* data = slot + LlSlot::kHeaderLines * LlSlot::kLineBytes;
    for (int64_t v = lane_id(); mine && v < p.vecs; v += 32) {
      uint4 val;
      mine = ll_load16(data + v * 2 * LlSlot::kLineBytes, e, val, p.deadline, tag);
#pragma unroll
      for (int q = 0; q < kMaxTopK; ++q)
        if (mine && q < nn && rows[q] >= 0) ptx::st_v4(p.recv + int64_t(rows[q]) * p.vecs + v, val);
    }
    if (!__all_sync(0xffffffffu, mine)) ok = false;
  }
  if (end_epoch(p.epoch, e)) {  // the last block: every row is placed
    for (int j = threadIdx.x; j < El; j += blockDim.x) {
      p.layout.count[j] = min(ptx::ld_relaxed_gpu(p.cursors + par * El + j), p.cap);
      p.layout.base[j] = j * p.cap;
    }
    for (int s = threadIdx.x; s < N; s += blockDim.x) p.layout.slots_in[s] = T;
  }
}

#endif  // __CUDACC__

}  // namespace pk::ep
