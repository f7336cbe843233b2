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

// Where each output element comes from. The numbers are stable: the CSV never stores them.
enum LayoutCode : int {
  kAllReduce = 0,
  kReduceScatter = 1,     // out[j] = sum_s in_s[rank * count + j]
  kAllGather = 2,         // out[s * count + j] = in_s[j]
  kAllToAll = 3,          // out[s * count + j] = in_s[rank * count + j]
  kReduceScatterCols = 4, // in (rows, n*cols), out (rows, cols): out[i][c] = sum_s in_s[i][rank*cols + c]
  kAllGatherCols = 5,     // in (rows, cols), out (rows, n*cols): out[i][s*cols + c] = in_s[i][c]
  kAllToAll4d = 6,        // in (B, Sl, H, D), out (B, n*Sl, H/n, D): scatter heads, gather sequence
};

PK_COLL_HD bool layout_reduces(int layout) {
  return layout == kAllReduce || layout == kReduceScatter || layout == kReduceScatterCols;
}

// What the checker needs to know about one rank's output.
struct RefSpec {
  int layout;
  int dtype;
  int n;         // ranks
  int rank;      // whose output
  uint64_t seed;
  uint64_t count;  // elements per rank block (all_reduce: all of it)
  uint64_t rows, cols;          // *_cols layouts
  uint64_t B, Sl, H, D;         // all_to_all_4d: per-rank input (B, Sl, H, D)
  uint64_t out_elems;
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

// Expected output element j of spec.rank in fp64; *abs_sum gets the sum of the magnitudes
// of the terms (the scale of the rounding error a reduction may make), 0 for copies.
PK_COLL_HD double ref_value(const RefSpec& s, uint64_t j, double* abs_sum) {
  double sum = 0, mag = 0;
  switch (s.layout) {
    case kAllReduce:
      for (int r = 0; r < s.n; ++r) {
        const double v = input_value(s.seed, r, j, s.dtype);
        sum += v;
        mag += v < 0 ? -v : v;
      }
      break;
    case kReduceScatter:
      for (int r = 0; r < s.n; ++r) {
        const double v = input_value(s.seed, r, static_cast<uint64_t>(s.rank) * s.count + j, s.dtype);
        sum += v;
        mag += v < 0 ? -v : v;
      }
      break;
    case kReduceScatterCols: {
      const uint64_t i = j / s.cols, c = j % s.cols;
      for (int r = 0; r < s.n; ++r) {
        const double v = input_value(s.seed, r, i * s.n * s.cols + static_cast<uint64_t>(s.rank) * s.cols + c, s.dtype);
        sum += v;
        mag += v < 0 ? -v : v;
      }
      break;
    }
    case kAllGather:
      sum = input_value(s.seed, static_cast<int>(j / s.count), j % s.count, s.dtype);
      break;
    case kAllToAll:
      sum = input_value(s.seed, static_cast<int>(j / s.count), static_cast<uint64_t>(s.rank) * s.count + j % s.count,
                        s.dtype);
      break;
    case kAllGatherCols: {
      const uint64_t w = s.n * s.cols, i = j / w, rem = j % w;
      sum = input_value(s.seed, static_cast<int>(rem / s.cols), i * s.cols + rem % s.cols, s.dtype);
      break;
    }
    case kAllToAll4d: {
      const uint64_t hn = s.H / s.n, S = s.n * s.Sl;
      const uint64_t d = j % s.D, h = (j / s.D) % hn, srow = (j / (s.D * hn)) % S, b = j / (s.D * hn * S);
      const uint64_t src = srow / s.Sl, sl = srow % s.Sl;
      const uint64_t idx = ((b * s.Sl + sl) * s.H + static_cast<uint64_t>(s.rank) * hn + h) * s.D + d;
      sum = input_value(s.seed, static_cast<int>(src), idx, s.dtype);
      break;
    }
    default:
      break;
  }
  if (abs_sum) *abs_sum = layout_reduces(s.layout) ? mag : 0.0;
  return sum;
}

// Rounding allowance of a reduction: every rank's partial sum may be rounded once to the
// element type (a ring rounds at each hop), each rounding at most half an ulp; twice that
// for slack. Copies must be exact.
PK_COLL_HD double tolerance(const RefSpec& s, double abs_sum) {
  if (!layout_reduces(s.layout)) return 0.0;
  const double u = s.dtype == kBf16 ? 1.0 / 256.0 : 1.0 / 8388608.0;  // 2 * unit roundoff
  return s.n * u * abs_sum;
}

}  // namespace pk::coll
