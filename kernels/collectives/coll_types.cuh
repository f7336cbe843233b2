#pragma once
// Element types of the collectives (bf16, fp32) and their 16-B vectors. Reductions
// accumulate in fp32 whatever the element type, and round once when storing.
#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/ptx.cuh"

namespace pk::coll {

template <class T>
struct Elem;

template <>
struct Elem<__nv_bfloat16> {
  static constexpr int kPerVec = 8;  // elements in 16 B
  __device__ static float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 from_f32(float v) { return __float2bfloat16_rn(v); }
  __device__ static void unpack(const uint4& v, float* f) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 t = __bfloat1622float2(h[i]);
      f[2 * i] = t.x;
      f[2 * i + 1] = t.y;
    }
  }
  __device__ static uint4 pack(const float* f) {
    uint4 v;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    return v;
  }
};

template <>
struct Elem<float> {
  static constexpr int kPerVec = 4;
  __device__ static float to_f32(float v) { return v; }
  __device__ static float from_f32(float v) { return v; }
  __device__ static void unpack(const uint4& v, float* f) {
    f[0] = __uint_as_float(v.x);
    f[1] = __uint_as_float(v.y);
    f[2] = __uint_as_float(v.z);
    f[3] = __uint_as_float(v.w);
  }
  __device__ static uint4 pack(const float* f) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]), __float_as_uint(f[3]));
  }
};

// acc += the elements of a 16-B vector (fp32 accumulation).
template <class T>
__device__ __forceinline__ void add_vec(float* acc, const uint4& v) {
  float t[Elem<T>::kPerVec];
  Elem<T>::unpack(v, t);
#pragma unroll
  for (int i = 0; i < Elem<T>::kPerVec; ++i) acc[i] += t[i];
}

// A thread's vectors v, v + stride, ... below nv: f(v, std::integral_constant<int, U>) for
// groups of U of them (v, v + stride, ..., v + (U - 1) * stride), then f(v, ...<int, 1>)
// one at a time for the rest. f issues all of a group's loads before its first store.
template <int U, class I, class F>
__device__ __forceinline__ void for_vectors(I v, I nv, I stride, F&& f) {
  for (; v + (U - 1) * stride < nv; v += U * stride) f(v, std::integral_constant<int, U>{});
  for (; v < nv; v += stride) f(v, std::integral_constant<int, 1>{});
}

// Vectors [0, nv) of src to dst by `threads` threads from `tid`, kCopyUnroll loads in flight
// before the first store: dst may alias src as far as the compiler knows, so it would not
// hoist a load above a store by itself (one load in flight is latency-bound over NVLink and
// in HBM alike).
constexpr int kCopyUnroll = 4;
__device__ __forceinline__ void copy_vectors(uint4* dst, const uint4* src, uint64_t nv, uint32_t tid, uint32_t threads) {
  uint64_t v = tid;
  for (; v + (kCopyUnroll - 1) * uint64_t(threads) < nv; v += kCopyUnroll * uint64_t(threads)) {
    uint4 x[kCopyUnroll];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u) x[u] = ptx::ld_v4(src + v + u * uint64_t(threads));
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u) ptx::st_v4(dst + v + u * uint64_t(threads), x[u]);
  }
  for (; v < nv; v += threads) ptx::st_v4(dst + v, ptx::ld_v4(src + v));
}

// The work of one block over [0, items): a contiguous slice, equal for equal arguments on
// every rank (the per-block signals pair block b of one rank with block b of another, so
// both must agree on what block b moves).
struct Slice {
  uint64_t lo, hi;
};
__device__ __forceinline__ Slice block_slice(uint64_t items, uint32_t block, uint32_t blocks) {
  const uint64_t per = (items + blocks - 1) / blocks;
  const uint64_t lo = per * block < items ? per * block : items;
  const uint64_t hi = lo + per < items ? lo + per : items;
  return {lo, hi};
}

// Element range [lo, hi) of rank r's chunk when `count` elements are split in n chunks whose
// boundaries fall on 16-B vectors (the last chunk takes the odd tail).
struct Chunk {
  uint64_t lo, hi;
};
__host__ __device__ __forceinline__ Chunk chunk_of(uint64_t count, int n, int r, int per_vec) {
  const uint64_t vecs = (count + per_vec - 1) / per_vec;
  const uint64_t per = (vecs + n - 1) / n * per_vec;
  const uint64_t lo = per * r < count ? per * r : count;
  const uint64_t hi = lo + per < count ? lo + per : count;
  return {lo, hi};
}

}  // namespace pk::coll
