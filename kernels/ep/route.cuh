#pragma once
// What every dispatch kernel does with a token's routing, warp-wide: lanes 0..TopK-1 hold the
// token's experts; the experts on one rank form a lane mask; the TokenHeader that goes with
// the token to that rank is assembled in registers (lane L < 16 holds its 32-bit word L) and
// read back the same way on the receiving side, where each local expert gets a row of the
// per-expert layout from an atomic cursor. Also the block-wide exclusive scan and the token
// histogram the count kernels share.
#include <cuda_bf16.h>

#include <climits>
#include <cstdint>

#include "kernels/collectives/coll_types.cuh"
#include "kernels/ep/ep_sync.cuh"
#include "kernels/ep/ep_types.cuh"
#include "kernels/status.cuh"

namespace pk::ep {

using Bf16 = coll::Elem<__nv_bfloat16>;

#ifdef __CUDACC__

// A token's routing as the warp holds it: lane k < TopK has expert k and its weight.
struct LaneRoute {
  int expert;  // global id, -1 on lanes >= TopK
  float weight;
};
__device__ __forceinline__ LaneRoute load_route(const int32_t* topk, const float* w, int t, int K) {
  const int l = lane_id();
  if (l < K) return {topk[int64_t(t) * K + l], w ? w[int64_t(t) * K + l] : 0.f};
  return {-1, 0.f};
}
// Ranks holding any of the token's experts (bit r), the same in every lane.
__device__ __forceinline__ unsigned rank_mask(const LaneRoute& lr, int El) {
  return __reduce_or_sync(0xffffffffu, lr.expert >= 0 ? 1u << (lr.expert / El) : 0u);
}
// Lanes whose expert lives on rank r.
__device__ __forceinline__ unsigned lanes_on(const LaneRoute& lr, int El, int r) {
  return __ballot_sync(0xffffffffu, lr.expert >= 0 && lr.expert / El == r);
}
// The lane of the q-th set bit of m (q < popc(m)); 0 otherwise.
__device__ __forceinline__ int nth_lane(unsigned m, int q) {
  for (int i = 0; i < q; ++i) m &= m - 1;
  return m ? __ffs(m) - 1 : 0;
}

// Word L (lanes L < 16) of the TokenHeader of token t for the experts of `members` (lanes of
// this warp's route), local ids expert % El; every lane calls it.
__device__ __forceinline__ uint32_t header_word(const LaneRoute& lr, unsigned members, int t, int El) {
  const int L = lane_id(), n = __popc(members);
  const uint32_t my_j = lr.expert >= 0 ? static_cast<uint32_t>(lr.expert % El) : 0u;
  const uint32_t my_w = __float_as_uint(lr.weight);
  const int qa = L < 6 ? 2 * (L - 2) : L - 6, qb = qa + 1;
  const uint32_t ja = __shfl_sync(0xffffffffu, my_j, nth_lane(members, qa > 0 ? qa : 0));
  const uint32_t jb = __shfl_sync(0xffffffffu, my_j, nth_lane(members, qb > 0 ? qb : 0));
  const uint32_t wa = __shfl_sync(0xffffffffu, my_w, nth_lane(members, qa > 0 ? qa : 0));
  if (L == 0) return static_cast<uint32_t>(t);
  if (L == 1) return static_cast<uint32_t>(n);
  if (L < 6) return (qa < n ? ja : 0u) | ((qb < n ? jb : 0u) << 16);
  if (L < 14) return qa < n ? wa : 0u;
  return 0u;
}
// The header's 16 B vector v (0..3) gathered into lanes v: every lane calls it.
__device__ __forceinline__ uint4 header_vector(uint32_t word) {
  const int base = 4 * (lane_id() & 3);
  return make_uint4(__shfl_sync(0xffffffffu, word, base), __shfl_sync(0xffffffffu, word, base + 1),
                    __shfl_sync(0xffffffffu, word, base + 2), __shfl_sync(0xffffffffu, word, base + 3));
}
// The other way: lanes 0..3 hold the header's 16 B vectors; every lane gets word L (L < 16).
__device__ __forceinline__ uint32_t word_of_vectors(const uint4& v) {
  const int L = lane_id() & 15, src = L >> 2, c = L & 3;
  const uint32_t x = __shfl_sync(0xffffffffu, v.x, src), y = __shfl_sync(0xffffffffu, v.y, src);
  const uint32_t z = __shfl_sync(0xffffffffu, v.z, src), w = __shfl_sync(0xffffffffu, v.w, src);
  return c == 0 ? x : c == 1 ? y : c == 2 ? z : w;
}

// A received header, per lane: lane q < n holds local expert j and weight w.
struct Received {
  int t, n;
  int j;
  float w;
};
__device__ __forceinline__ Received read_header(uint32_t word) {
  const int q = lane_id();
  Received r;
  r.t = static_cast<int>(__shfl_sync(0xffffffffu, word, 0));
  r.n = static_cast<int>(__shfl_sync(0xffffffffu, word, 1));
  const uint32_t jw = __shfl_sync(0xffffffffu, word, 2 + (q & 7) / 2);
  const uint32_t ww = __shfl_sync(0xffffffffu, word, 6 + (q & 7));
  r.j = static_cast<int>((jw >> (16 * (q & 1))) & 0xFFFFu);
  r.w = __uint_as_float(ww);
  return r;
}

// Where the receiver puts a token: for each local expert (lane q < n), row
// region(j) + atomicAdd(cursor[j], 1); the handle entry and the rows' source recorded.
// base == nullptr: fixed regions of `cap` rows (region j at j * cap, at most cap rows);
// otherwise region j at base[j] with at most limit[j] rows. A row past its region is a
// kStatusBadConfig (a count that disagrees with the rows sent), never a write.
// Returns the lane's row (-1 for lanes >= n or a refused row); every lane calls it.
__device__ __forceinline__ int assign_row(const Received& h, int s, int* cursor, const int* base, const int* limit, int cap,
                                          int32_t* row_src, HandleEntry* entry, const Deadline& dl) {
  const int q = lane_id();
  int row = -1;
  if (q < h.n && q < kMaxTopK) {
    const int pos = atomicAdd(&cursor[h.j], 1);
    const int room = base ? limit[h.j] : cap;
    if (pos < room) {
      row = (base ? base[h.j] : h.j * cap) + pos;
      row_src[row] = pack_src(s, h.t);
    } else {
      report_status(dl.status, kStatusBadConfig, 0xE000ull | static_cast<unsigned long long>(h.j) << 16);
    }
    entry->row[q] = row;
    entry->w[q] = h.w;
  }
  if (q == 0) {
    entry->t = h.t;
    entry->n = h.n;
  }
  return row;
}

// ---- block-wide helpers (any block size that is a multiple of 32, at most 1024) ----

// In-place exclusive prefix sum of a[0..n) in shared memory; every thread calls it; returns
// the total. `scratch`: 32 ints of shared memory.
__device__ __forceinline__ int block_exclusive_scan(int* a, int n, int* scratch) {
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int per = (n + threads - 1) / threads, lo = tid * per, hi = lo + per < n ? lo + per : n;
  int mine = 0;
  for (int i = lo; i < hi; ++i) mine += a[i];
  int incl = mine;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int v = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane_id() >= d) incl += v;
  }
  __syncthreads();  // scratch may still be read by a previous call
  if (lane_id() == 31) scratch[tid / 32] = incl;
  __syncthreads();
  if (tid < 32) {
    const int warps = threads / 32;
    int w = tid < warps ? scratch[tid] : 0;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const int v = __shfl_up_sync(0xffffffffu, w, d);
      if (tid >= d) w += v;
    }
    scratch[tid] = w;  // inclusive over warps
  }
  __syncthreads();
  int run = (tid >= 32 ? scratch[tid / 32 - 1] : 0) + incl - mine;
  const int total = scratch[threads / 32 - 1];
  for (int i = lo; i < hi; ++i) {
    const int v = a[i];
    a[i] = run;
    run += v;
  }
  __syncthreads();
  return total;
}

// The rank's tokens counted into shared memory (zeroed by the caller): cnt[e] tokens routed
// to global expert e, dcnt[r] tokens with at least one expert on rank r (sent once to r).
__device__ __forceinline__ void count_tokens(const int32_t* topk, int T, int K, int El, int N, int* cnt, int* dcnt) {
  const int warps = static_cast<int>(blockDim.x) / 32, warp = static_cast<int>(threadIdx.x) / 32;
  for (int t0 = warp * 32; t0 < T; t0 += warps * 32) {
    const int t = t0 + lane_id();
    unsigned mask = 0;
    if (t < T)
      for (int k = 0; k < K; ++k) {
        const int e = topk[int64_t(t) * K + k];
        atomicAdd(&cnt[e], 1);
        mask |= 1u << (e / El);
      }
    for (int r = 0; r < N; ++r) {
      const unsigned b = __ballot_sync(0xffffffffu, (mask >> r) & 1u);
      if (lane_id() == 0 && b) atomicAdd(&dcnt[r], __popc(b));
    }
  }
}

// The receive layout from the per-expert totals (tot[El], shared memory, left intact):
// count, base (aligned regions), tile prefix (row tiles x tiles_n). `tmp`: El + 1 ints and
// `scratch` 32 ints of shared memory. Every thread calls it; thread subsets write `out`.
__device__ __forceinline__ void write_layout(const int* tot, int El, int tiles_n, const EpLayout& out, int* tmp, int* scratch) {
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  for (int j = tid; j < El; j += threads) tmp[j] = static_cast<int>(align_rows(tot[j]));
  __syncthreads();
  block_exclusive_scan(tmp, El, scratch);
  for (int j = tid; j < El; j += threads) {
    out.count[j] = tot[j];
    out.base[j] = tmp[j];
  }
  __syncthreads();
  for (int j = tid; j < El; j += threads) tmp[j] = row_tiles(tot[j]) * tiles_n;
  __syncthreads();
  const int total = block_exclusive_scan(tmp, El, scratch);
  for (int j = tid; j < El; j += threads) out.tile_prefix[j] = tmp[j];
  if (tid == 0) out.tile_prefix[El] = total;
  __syncthreads();
}

// Copies a token's vectors [0, vecs) from src to the rows rows[0..n) of dst (rows of vecs
// vectors; a negative row is skipped), the warp's lanes striding, kFanUnroll loads in flight
// before the first store (the compiler cannot hoist a load above a store that may alias it).
constexpr int kFanUnroll = 4;
__device__ __forceinline__ void fan_copy(const uint4* src, uint4* dst, const int (&rows)[kMaxTopK], int n, int64_t vecs) {
  coll::for_vectors<kFanUnroll>(int64_t(lane_id()), vecs, int64_t(32), [&](int64_t v, auto u) {
    constexpr int U = decltype(u)::value;
    uint4 val[U];
#pragma unroll
    for (int i = 0; i < U; ++i) val[i] = ptx::ld_v4(src + v + 32 * i);
#pragma unroll
    for (int q = 0; q < kMaxTopK; ++q)
      if (q < n && rows[q] >= 0) {
#pragma unroll
        for (int i = 0; i < U; ++i) ptx::st_v4(dst + int64_t(rows[q]) * vecs + v + 32 * i, val[i]);
      }
  });
}

// ---- weighted partial sums of a token's rows (combine, expert side) ----
// acc = sum_q w_q * rows_q[v] over the entry's rows (fp32), as bf16 x 8.
__device__ __forceinline__ uint4 weighted_rows(const uint4* y, int64_t vecs, const HandleEntry& h, int64_t v) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int q = 0; q < h.n && q < kMaxTopK; ++q) {
    if (h.row[q] < 0) continue;
    float f[8];
    Bf16::unpack(ptx::ld_v4(y + int64_t(h.row[q]) * vecs + v), f);
    const float wq = h.w[q];
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] += wq * f[i];
  }
  return Bf16::pack(acc);
}

// The partials of the handle entries (items k-major over the sources, this warp's from
// `first` stepping `stride`), each 16-B vector v of the entry (source s, slot k, token t)
// handed to store(s, k, t, v, value): the first phase of every combine.
template <class Store>
__device__ __forceinline__ void partial_sums(const uint4* y, const HandleEntry* handle, const int* slots_in, int slot_cap,
                                             int N, int64_t vecs, int first, int stride, Store&& store) {
  int most = 0;
  for (int s = 0; s < N; ++s) most = max(most, slots_in[s]);
  for (int i = first; i < N * most; i += stride) {
    const int s = i % N, k = i / N;
    if (k >= slots_in[s]) continue;
    const HandleEntry h = handle[int64_t(s) * slot_cap + k];
    if (h.n <= 0) continue;
    for (int64_t v = lane_id(); v < vecs; v += 32) store(s, k, h.t, v, weighted_rows(y, vecs, h, v));
  }
}

#endif  // __CUDACC__

}  // namespace pk::ep
