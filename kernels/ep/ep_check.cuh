#pragma once
// Inputs and checks of the expert-parallel study, on the GPU, from the value functions of
// ep_data.cuh (the host computes the same ones: the CPU tests and the host spot checks).
//   dispatch  every row of every expert region: a valid source (rank, token), routed to this
//             expert, not seen before (a bitmap over (expert, source, token)), and bitwise
//             equal to the source token; together with the per-expert counts compared on the
//             host, the regions hold exactly the tokens routed here.
//   combine   every element of every token against the fp64 sum of its experts' outputs with
//             the router weights: |out - ref| <= kCombineTol * sum |w y| (two bf16 roundings:
//             the partial per rank and the result).
//   gemm      every element of every expert's rows finite (a tile never written keeps the
//             poison, a NaN); the values are spot-checked on the host in fp64.
#include <cstdint>

#include "kernels/ep/ep_data.cuh"
#include "kernels/ep/ep_types.cuh"

namespace pk::ep {

inline constexpr double kCombineTol = 1.0 / 128;

struct CheckCounters {
  unsigned long long wrong_rows;
  unsigned long long wrong_values;
  unsigned int max_rel_bits;  // float bits of the largest relative error (non-negative: ordered as ints)
  unsigned int pad;
};

#ifdef __CUDACC__

static __global__ void fill_tokens_kernel(uint16_t* x, int tokens, int hidden, uint64_t seed, int rank) {
  const int64_t n = int64_t(tokens) * hidden;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    x[i] = x_bits(seed, rank, static_cast<int>(i / hidden), static_cast<int>(i % hidden));
}

static __global__ void fill_weights_kernel(uint16_t* wts, int local_experts, int h_expert, int hidden, uint64_t seed, int rank) {
  const int64_t per = int64_t(h_expert) * hidden, n = per * local_experts;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int j = static_cast<int>(i / per);
    const int64_t r = i % per;
    wts[i] = w_bits(seed, rank * local_experts + j, static_cast<int>(r / hidden), static_cast<int>(r % hidden));
  }
}

// Expert outputs y in the per-expert layout (grid.y = local expert), from the rows' sources.
static __global__ void fill_outputs_kernel(uint16_t* y, EpLayout layout, const int32_t* row_src, int hidden, uint64_t seed, int rank,
                                    int local_experts) {
  const int j = blockIdx.y;
  const int64_t n = int64_t(layout.count[j]) * hidden, first = layout.base[j];
  const int e = rank * local_experts + j;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = first + i / hidden;
    const int32_t src = row_src[row];
    y[row * hidden + i % hidden] = y_bits(seed, e, src_rank(src), src_token(src), static_cast<int>(i % hidden));
  }
}

// One warp per row (grid.y = local expert). topk_all: every rank's routing [N][T][K].
static __global__ void check_dispatch_kernel(const uint16_t* recv, EpLayout layout, const int32_t* row_src, const int32_t* topk_all,
                                      unsigned* seen, int ranks, int tokens, int topk_k, int hidden, uint64_t seed, int rank,
                                      int local_experts, CheckCounters* out) {
  const int j = blockIdx.y, lane = threadIdx.x & 31;
  const int e = rank * local_experts + j;
  const int warps = blockDim.x / 32, gw = blockIdx.x * warps + threadIdx.x / 32, nw = gridDim.x * warps;
  for (int i = gw; i < layout.count[j]; i += nw) {
    const int64_t row = layout.base[j] + int64_t(i);
    const int32_t src = row_src[row];
    const int s = src_rank(src), t = src_token(src);
    bool good = s < ranks && t < tokens;
    if (good && lane == 0) {
      bool routed = false;
      for (int k = 0; k < topk_k; ++k) routed |= topk_all[(int64_t(s) * tokens + t) * topk_k + k] == e;
      const int64_t bit = (int64_t(j) * ranks + s) * tokens + t;
      const unsigned m = 1u << (bit & 31);
      good = routed && !(atomicOr(&seen[bit >> 5], m) & m);
    }
    good = __shfl_sync(0xffffffffu, good, 0);
    if (good)
      for (int c = lane; c < hidden; c += 32) good &= recv[row * hidden + c] == x_bits(seed, s, t, c);
    if (!__all_sync(0xffffffffu, good) && lane == 0) atomicAdd(&out->wrong_rows, 1ull);
  }
}

// Every element of this rank's combined tokens.
static __global__ void check_combine_kernel(const uint16_t* outv, const int32_t* topk, const float* w, int tokens, int topk_k,
                                     int hidden, uint64_t seed, int rank, CheckCounters* out) {
  const int64_t n = int64_t(tokens) * hidden;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int t = static_cast<int>(i / hidden), c = static_cast<int>(i % hidden);
    double ref = 0, mag = 0;
    for (int k = 0; k < topk_k; ++k) {
      const double v = double(w[int64_t(t) * topk_k + k]) * bf16_to_float(y_bits(seed, topk[int64_t(t) * topk_k + k], rank, t, c));
      ref += v;
      mag += v < 0 ? -v : v;
    }
    const double got = bf16_to_float(outv[i]);
    const double err = got > ref ? got - ref : ref - got;
    const bool bad = !(err <= kCombineTol * mag + 1e-30);  // NaN fails too
    if (bad) atomicAdd(&out->wrong_values, 1ull);
    const float rel = bad && !(err == err) ? 3.0e38f : static_cast<float>(err / (mag > 0 ? mag : 1));
    atomicMax(&out->max_rel_bits, __float_as_uint(rel));
  }
}

// Non-finite elements of every expert's rows of C (grid.y = local expert).
static __global__ void check_finite_kernel(const uint16_t* c, EpLayout layout, int cols, CheckCounters* out) {
  const int j = blockIdx.y;
  const int64_t n = int64_t(layout.count[j]) * cols, first = int64_t(layout.base[j]) * cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    if ((c[first + i] & 0x7F80u) == 0x7F80u) atomicAdd(&out->wrong_values, 1ull);
}

#endif  // __CUDACC__

}  // namespace pk::ep
