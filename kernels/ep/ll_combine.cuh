#pragma once
// Low-latency combine: ll_dispatch in reverse, no barrier. For each received (source,
// token), the weighted partial sum of the token's local expert outputs (fp32, rounded to
// bf16) goes back as LL lines into the source's landing area [parity][this rank][token]; each
// rank polls the lines of its own tokens from the ranks holding their experts and sums them
// in fp32 (ranks ascending), rounding once.
// A rank expects partials only from the ranks its tokens went to, so each launch also writes
// one "hello" line (the epoch) to every rank at its start and waits for every rank's before it
// ends: no rank reaches launch e + 2 (this parity again) while another still reads launch e.
#include "kernels/ep/ht_combine.cuh"

namespace pk::ep {

struct LlCombineParams {
  const uint4* y;
  const HandleEntry* handle;  // [N][T] (ll_dispatch's)
  const int* slots_in;        // [N] = T
  int slot_cap;
  PeerTable<char> landing;    // [2][N ranks][T] x data lines (H * 2 / 8 lines) at every rank
  PeerTable<char> hello;      // [2][N] lines at every rank
  const int32_t* topk;
  int tokens, topk_k, ranks, self, local_experts;
  int64_t vecs;
  uint4* out;
  KernelEpoch epoch;
  Deadline deadline;
};

#ifdef __CUDACC__

static __global__ void __launch_bounds__(512, 1) ll_combine_kernel(const __grid_constant__ LlCombineParams p) {
  const int N = p.ranks, T = p.tokens;
  const int warps = static_cast<int>(blockDim.x) / 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int gw = blockIdx.x * warps + warp, nw = gridDim.x * warps;
  const int e = begin_epoch(p.epoch), par = e & 1;
  const int64_t token_bytes = 2 * p.vecs * LlSlot::kLineBytes;  // a token's data lines
  auto at = [&](const char* base, int r, int t) { return base + ((int64_t(par) * N + r) * T + t) * token_bytes; };
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < N)
    ll_store(p.hello.at[threadIdx.x] + (int64_t(par) * N + p.self) * LlSlot::kLineBytes, make_uint2(0, 0), e);

  partial_sums(p.y, p.handle, p.slots_in, p.slot_cap, N, p.vecs, gw, nw, [&](int s, int, int t, int64_t v, const uint4& val) {
    ll_store16(const_cast<char*>(at(p.landing.at[s], p.self, t)) + v * 2 * LlSlot::kLineBytes, val, e);
  });

  bool ok = true;
  for (int t = gw; ok && t < T; t += nw) {
    const unsigned ranks = rank_mask(load_route(p.topk, nullptr, t, p.topk_k), p.local_experts);
    for (int64_t v = lane_id(); ok && v < p.vecs; v += 32) {
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int r = 0; ok && r < N; ++r)
        if (ranks >> r & 1u) {
          uint4 val;
          ok = ll_load16(at(p.landing.local(), r, t) + v * 2 * LlSlot::kLineBytes, e, val, p.deadline,
                         kWaitPartial | static_cast<unsigned long long>(r) << 16);
          coll::add_vec<__nv_bfloat16>(acc, val);
        }
      if (ok) ptx::st_v4(p.out + int64_t(t) * p.vecs + v, Bf16::pack(acc));
    }
    ok = __all_sync(0xffffffffu, ok);
  }
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < N) {
    uint2 d;
    ll_load(p.hello.local() + (int64_t(par) * N + threadIdx.x) * LlSlot::kLineBytes, e, d, p.deadline,
            kWaitHello | static_cast<unsigned long long>(threadIdx.x) << 16);
  }
  end_epoch(p.epoch, e);
}

#endif  // __CUDACC__

}  // namespace pk::ep
