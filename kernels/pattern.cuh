#pragma once
// Random, reproducible data: 64-bit word i of a buffer filled with `seed` is
// mix(seed, i). Any copy can be checked anywhere without a reference copy of its source.
#include <cstdint>

namespace pk {

__host__ __device__ __forceinline__ uint64_t pattern_word(uint64_t seed, uint64_t index) {
  // splitmix64 finaliser over (seed, index)
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static __global__ void fill_pattern_kernel(uint64_t* dst, uint64_t words, uint64_t seed, uint64_t first_index) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < words; i += uint64_t(gridDim.x) * blockDim.x)
    dst[i] = pattern_word(seed, first_index + i);
}

// Counts words of dst[0, words) that differ from the pattern (seed, first_index + i) and
// keeps the lowest differing index. mismatch[0] = count, mismatch[1] = first index (init ~0).
static __global__ void check_pattern_kernel(const uint64_t* dst, uint64_t words, uint64_t seed, uint64_t first_index,
                                     unsigned long long* mismatch) {
  unsigned long long bad = 0, first = ~0ull;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < words; i += uint64_t(gridDim.x) * blockDim.x) {
    if (dst[i] != pattern_word(seed, first_index + i)) {
      if (bad == 0) first = i;
      ++bad;
    }
  }
  if (bad) {
    atomicAdd(&mismatch[0], bad);
    atomicMin(&mismatch[1], first);
  }
}

}  // namespace pk
