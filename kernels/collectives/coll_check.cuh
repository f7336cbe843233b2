#pragma once
// Inputs, poison and the after-timing check, on the device: the check evaluates the fp64
// reference of coll_reference.cuh (the function the CPU tests check on the host) for every
// output element, so a 1 GB point is verified in milliseconds.
#include <cuda_bf16.h>

#include "kernels/collectives/coll_reference.cuh"
#include "kernels/collectives/coll_types.cuh"

namespace pk::coll {

struct CheckResult {
  unsigned long long wrong;         // elements outside the tolerance (NaN included)
  unsigned long long max_abs_bits;  // max |out - ref| (a non-negative double's bits order like it)
  unsigned long long max_rel_bits;  // max |out - ref| / scale (scale: sum of |terms|, or |ref| for copies)
  unsigned long long first_bad;     // lowest wrong index (~0 if none)
};

template <class T>
__device__ __forceinline__ double to_double(T v) {
  return static_cast<double>(Elem<T>::to_f32(v));
}

template <class T>
static __global__ void fill_input_kernel(T* dst, uint64_t elems, uint64_t seed, int rank, int dtype) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < elems; i += uint64_t(gridDim.x) * blockDim.x)
    dst[i] = Elem<T>::from_f32(static_cast<float>(input_value(seed, rank, i, dtype)));
}

template <class T>
static __global__ void check_output_kernel(const T* out, RefSpec spec, CheckResult* res) {
  unsigned long long wrong = 0, first = ~0ull;
  double max_abs = 0, max_rel = 0;
  for (uint64_t j = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; j < spec.out_elems;
       j += uint64_t(gridDim.x) * blockDim.x) {
    double mag = 0;
    const double ref = ref_value(spec, j, &mag);
    const double got = to_double(out[j]);
    const double err = fabs(got - ref);
    const double scale = spec.map.reduces ? mag : fabs(ref);
    if (!(err <= tolerance(spec, mag))) {  // NaN fails too
      if (wrong == 0) first = j;
      ++wrong;
    }
    if (err == err) {
      max_abs = fmax(max_abs, err);
      max_rel = fmax(max_rel, scale > 0 ? err / scale : err);
    } else {
      max_abs = max_rel = 1e300;  // NaN output: as large as can be shown
    }
  }
  // One atomic of each kind per block, not per thread: same-address atomics serialise, and
  // two per thread of a full grid cost milliseconds where the check itself takes microseconds.
  // The warp, then the block, combine first (blockDim a multiple of 32, at most 1024).
  for (int o = 16; o > 0; o >>= 1) {
    wrong += __shfl_xor_sync(~0u, wrong, o);
    const unsigned long long f = __shfl_xor_sync(~0u, first, o);
    first = f < first ? f : first;
    max_abs = fmax(max_abs, __shfl_xor_sync(~0u, max_abs, o));
    max_rel = fmax(max_rel, __shfl_xor_sync(~0u, max_rel, o));
  }
  __shared__ unsigned long long s_wrong[32], s_first[32];
  __shared__ double s_abs[32], s_rel[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (lane == 0) {
    s_wrong[warp] = wrong;
    s_first[warp] = first;
    s_abs[warp] = max_abs;
    s_rel[warp] = max_rel;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (unsigned w = 1; w < warps; ++w) {
    wrong += s_wrong[w];
    first = s_first[w] < first ? s_first[w] : first;
    max_abs = fmax(max_abs, s_abs[w]);
    max_rel = fmax(max_rel, s_rel[w]);
  }
  if (wrong) {
    atomicAdd(&res->wrong, wrong);
    atomicMin(&res->first_bad, first);
  }
  atomicMax(&res->max_abs_bits, static_cast<unsigned long long>(__double_as_longlong(max_abs)));
  atomicMax(&res->max_rel_bits, static_cast<unsigned long long>(__double_as_longlong(max_rel)));
}

}  // namespace pk::coll
