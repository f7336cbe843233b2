#pragma once
// The study's values, a pure function of (seed, coordinates) on host and device alike, so a
// checker recomputes any element without a copy of the inputs: tokens x[s][t][c], expert
// outputs y (the combine's input, per global expert e and the token's source (s, t)) and
// expert weights W[e][n][k] of the grouped GEMM. bf16 values (+-)(1 + m/128) * 2^-q with
// q in 0..3 and m in 0..127: never zero, never NaN, exactly representable.
#include <cstdint>

#include "kernels/ep/ep_types.cuh"

namespace pk::ep {

PK_EP_HD uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// bf16 bits from 64 random bits.
PK_EP_HD uint16_t bf16_bits_of(uint64_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 63) & 1u;
  const uint32_t q = static_cast<uint32_t>(h >> 40) & 3u;
  const uint32_t m = static_cast<uint32_t>(h) & 0x7Fu;
  return static_cast<uint16_t>((sign << 15) | ((127u - q) << 7) | m);
}

// The float a bf16 bit pattern stands for (host and device, no CUDA headers).
PK_EP_HD float bf16_to_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
#endif
}

enum : uint64_t { kTagX = 0x1000, kTagY = 0x2000, kTagW = 0x3000 };

PK_EP_HD uint16_t x_bits(uint64_t seed, int s, int t, int c) {
  return bf16_bits_of(mix64(seed ^ kTagX ^ (uint64_t(s) << 56) ^ (uint64_t(t) << 24) ^ uint64_t(c)));
}
PK_EP_HD uint16_t y_bits(uint64_t seed, int e, int s, int t, int c) {
  return bf16_bits_of(mix64(seed ^ kTagY ^ (uint64_t(e) << 44) ^ (uint64_t(s) << 40) ^ (uint64_t(t) << 16) ^ uint64_t(c)));
}
PK_EP_HD uint16_t w_bits(uint64_t seed, int e, int n, int k) {
  return bf16_bits_of(mix64(seed ^ kTagW ^ (uint64_t(e) << 48) ^ (uint64_t(n) << 24) ^ uint64_t(k)));
}

}  // namespace pk::ep
