#pragma once
// The ring KV pass's input values (ring_kv.cuh), a pure function of (seed, index) on host and
// device alike: multiples of 1/64 in [-1, 1), exact in bf16. Plain C++ where not compiled by
// nvcc (the CPU tests and the host checks include it).
#include <cstdint>
#include <cstring>

namespace pk::seqpar {

#if defined(__CUDACC__)
#define PK_SEQPAR_HD __host__ __device__ __forceinline__
#else
#define PK_SEQPAR_HD inline
#endif

PK_SEQPAR_HD uint64_t value_hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}
// Element `i` of the tensor of `seed`: k / 64, k in [-64, 63], as bf16 bits (exact).
PK_SEQPAR_HD uint16_t value_bits(uint64_t seed, uint64_t i) {
  const int k = static_cast<int>(value_hash(seed * 0x9E3779B97F4A7C15ull + i) & 127) - 64;
  const float f = static_cast<float>(k) * (1.0f / 64);  // at most 7 significant bits: the bf16 is the float's top half
#ifdef __CUDA_ARCH__
  return static_cast<uint16_t>(__float_as_uint(f) >> 16);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
#endif
}

}  // namespace pk::seqpar
