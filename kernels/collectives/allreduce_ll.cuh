#pragma once
// All-reduce, low-latency (LL) protocol for small messages: no barrier at all. Each GPU
// pushes its input to every peer as LL lines (16 B = two {4 B data, 4 B flag} words, the
// flag being this launch's epoch), then polls its own landing lines until every flag
// reads the epoch, and sums. The flag travels inside the data word (kernels/ptx/global.cuh: the 8-B
// halves are single-copy atomic), so the data is valid the moment its flag is, with no
// fence and no separate signal: one NVLink trip per message instead of data + flag +
// barrier round trips. Half of every line is flag, so it only pays for small messages.
//
// Reuse: the landing lines are double-buffered by epoch parity. A peer can run at most one
// launch ahead (its launch e+1 needs this GPU's data of e+1, pushed only after this GPU's
// launch e ended), so it writes parity (e+1)&1 while this GPU may still read parity e&1.
// Flags are compared for equality with the epoch: a stale line holds e-2 or 0.
#include "kernels/collectives/coll_params.cuh"
#include "kernels/collectives/ll_lines.cuh"

namespace pk::coll {

struct LlConfig : LlLines {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kLinesPerBlock = 256;
};

// fp32 sums of one 8-B payload back to its element type, as the {lo, hi} words of a line.
template <class T>
__device__ __forceinline__ uint2 pack_payload(const float* acc) {
  if constexpr (sizeof(T) == 2) {
    const __nv_bfloat162 a = __floats2bfloat162_rn(acc[0], acc[1]), b = __floats2bfloat162_rn(acc[2], acc[3]);
    return make_uint2(*reinterpret_cast<const uint32_t*>(&a), *reinterpret_cast<const uint32_t*>(&b));
  } else {
    return make_uint2(__float_as_uint(acc[0]), __float_as_uint(acc[1]));
  }
}

template <class T>
__device__ __forceinline__ void add_payload(float* acc, uint32_t lo, uint32_t hi) {
  if constexpr (sizeof(T) == 2) {
    const float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&lo));
    const float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&hi));
    acc[0] += a.x;
    acc[1] += a.y;
    acc[2] += b.x;
    acc[3] += b.y;
  } else {
    acc[0] += __uint_as_float(lo);
    acc[1] += __uint_as_float(hi);
  }
}

template <class T>
__global__ void __launch_bounds__(LlConfig::kThreads) all_reduce_ll_kernel(const __grid_constant__ CollParams<T> p) {
  constexpr int kPer = 8 / sizeof(T);  // elements per 8-B payload
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  const uint64_t lines = LlConfig::lines(p.count, sizeof(T));
  const uint64_t par = static_cast<uint64_t>(e & 1);
  auto line = [&](int owner, int src, uint64_t u) {
    return reinterpret_cast<char*>(p.scratch.at[owner]) + ((par * n + src) * lines + u) * LlConfig::kLineBytes;
  };
  const uint2* in = reinterpret_cast<const uint2*>(p.in.local());  // over-reads past count stay in the allocation
  const uint64_t flag = static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32;
  const Slice s = block_slice(lines, blockIdx.x, gridDim.x);
  for (uint64_t u = s.lo + threadIdx.x; u < s.hi; u += blockDim.x) {
    const uint2 d = in[u];
#pragma unroll
    for (int k = 1; k < kMaxGpus; ++k)
      if (k < n) ptx::st_volatile_v2_u64(line((self + k) % n, self, u), flag | d.x, flag | d.y);
  }
  bool ok = true;
  T* out = p.out.local();
  for (uint64_t u = s.lo + threadIdx.x; ok && u < s.hi; u += blockDim.x) {
    float acc[kPer] = {};
    const uint2 d = in[u];
    add_payload<T>(acc, d.x, d.y);
    for (int k = 1; k < n && ok; ++k) {
      const int r = (self + k) % n;
      uint64_t a = 0, b = 0;
      ok = spin_until(
          [&] {
            ptx::ld_volatile_v2_u64(line(self, r, u), a, b);
            return static_cast<int>(a >> 32) == e && static_cast<int>(b >> 32) == e;
          },
          p.sync.deadline, kWaitFlag | (static_cast<unsigned long long>(r) << 16));
      add_payload<T>(acc, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    }
    const uint64_t first = u * kPer;
    if (first + kPer <= p.count) {  // a whole payload: one 8-B store
      reinterpret_cast<uint2*>(out)[u] = pack_payload<T>(acc);
    } else {
#pragma unroll
      for (int i = 0; i < kPer; ++i)
        if (first + i < p.count) out[first + i] = Elem<T>::from_f32(acc[i]);
    }
  }
  if (__syncthreads_and(ok)) end_epoch(p.sync, e);
}

}  // namespace pk::coll
