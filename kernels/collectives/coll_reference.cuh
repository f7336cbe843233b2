#pragma once
// The inputs and the expected outputs of every collective, as functions of (seed, rank,
// index): the fill kernels, the device checker and the CPU tests all call these, so the
// reference is one definition. Plain C++ sees the same code (the CPU tests build it).
//
// Inputs are random, never zero, and exactly representable in the element type: a value
// is +-(1 + m / 2^mb) * 2^(e - 2) with e in 0..3 and mb mantissa bits (7 for bf16, 23 for
// fp32), so a bf16 input and its fp32 twin are the same number and the fp64 reference
// sees exactly what the GPU summed.
#include <cstdint>

#ifdef __CUDACC__
#define PK_COLL_HD __host__ __device__ __forceinline__
#else
#define PK_COLL_HD inline
#endif

namespace pk::coll {

enum DTypeCode : int { kBf16 = 0, kF32 = 1 };

// The layouts the kernels dispatch on (segments_ll.cuh, the push and TMA segment kernels).
// The numbers are stable (they seed each point's inputs); the CSV never stores them. A
// collective added later takes a number past these in its declaration (microbench/collectives/
// collective.h); the registry test refuses two alike.
enum LayoutCode : int {
  kAllReduce = 0, kReduceScatter = 1, kAllGather = 2, kAllToAll = 3,  // the plain blocks
  kReduceScatterCols = 4, kAllGatherCols = 5, kAllToAll4d = 6,         // the tensor dimensions
};

// Where output element j of one rank comes from, as data, so that one checker serves every
// collective (each declares its map: Collective::ref_map). j is read as digits of mixed radix,
// least significant first (radix 0: this digit takes the rest, and is the last); the input
// index is base + sum step[k] * digit[k]; the element is input `index` of rank digit[src_digit]
// (of rank src_rank when src_digit < 0), or with `reduces` the sum of input `index` over every
// rank.
struct RefMap {
  static constexpr int kDigits = 5;
  int reduces;
  int src_digit;
  int src_rank;
  uint64_t radix[kDigits];
  uint64_t step[kDigits];
  uint64_t base;
};

// What the checker needs to know about one rank's output.
struct RefSpec {
  int dtype;
  int n;  // ranks
  uint64_t seed;
  uint64_t out_elems;
  RefMap map;  // of this rank's output
};

PK_COLL_HD uint64_t mix64(uint64_t seed, uint64_t index) {
  // splitmix64 finaliser over (seed, index)
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

PK_COLL_HD int mantissa_bits(int dtype) { return dtype == kBf16 ? 7 : 23; }

// Input element i of `rank`.
PK_COLL_HD double input_value(uint64_t seed, int rank, uint64_t i, int dtype) {
  const uint64_t w = mix64(seed ^ (0xA24BAED4963EE407ull * static_cast<uint64_t>(rank + 1)), i);
  const int mb = mantissa_bits(dtype);
  const double m = static_cast<double>(w & ((1ull << mb) - 1)) / static_cast<double>(1ull << mb);
  const int e = static_cast<int>((w >> 40) & 3);
  const double scale = e == 0 ? 0.25 : e == 1 ? 0.5 : e == 2 ? 1.0 : 2.0;
  const double v = (1.0 + m) * scale;
  return (w >> 63) ? -v : v;
}

// Which input element output element j is (its source rank; -1 with `reduces`: every rank).
struct RefSource {
  int rank;
  uint64_t index;
};
PK_COLL_HD RefSource ref_source(const RefMap& m, uint64_t j) {
  RefSource r{m.reduces ? -1 : m.src_rank, m.base};
  uint64_t rest = j;
  for (int k = 0; k < RefMap::kDigits; ++k) {
    const uint64_t digit = m.radix[k] ? rest % m.radix[k] : rest;
    r.index += m.step[k] * digit;
    if (k == m.src_digit) r.rank = static_cast<int>(digit);
    if (!m.radix[k]) break;
    rest /= m.radix[k];
  }
  return r;
}

// Expected output element j of the spec's rank in fp64; *abs_sum gets the sum of the
// magnitudes of the terms (the scale of the rounding error a reduction may make), 0 for copies.
PK_COLL_HD double ref_value(const RefSpec& s, uint64_t j, double* abs_sum) {
  const RefSource src = ref_source(s.map, j);
  double sum = 0, mag = 0;
  if (s.map.reduces) {
    for (int r = 0; r < s.n; ++r) {
      const double v = input_value(s.seed, r, src.index, s.dtype);
      sum += v;
      mag += v < 0 ? -v : v;
    }
  } else {
    sum = input_value(s.seed, src.rank, src.index, s.dtype);
  }
  if (abs_sum) *abs_sum = s.map.reduces ? mag : 0.0;
  return sum;
}

// Rounding allowance of a reduction: every rank's partial sum may be rounded once to the
// element type (a ring rounds at each hop), each rounding at most half an ulp; twice that
// for slack. Copies must be exact.
PK_COLL_HD double tolerance(const RefSpec& s, double abs_sum) {
  if (!s.map.reduces) return 0.0;
  const double u = s.dtype == kBf16 ? 1.0 / 256.0 : 1.0 / 8388608.0;  // 2 * unit roundoff
  return s.n * u * abs_sum;
}

}  // namespace pk::coll
