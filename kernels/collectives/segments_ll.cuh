#pragma once
// All-gather, reduce-scatter and all-to-all (plain layouts), low-latency (LL) protocol for
// small messages: no barrier at all, the all-reduce LL of allreduce_ll.cuh applied to
// per-peer blocks. Rank `self` pushes the block meant for peer r as LL lines (16 B = two
// {4 B data, 4 B flag} words, the flag being this launch's epoch) into r's landing area
// [self], then polls its own landing lines until every flag reads the epoch and unpacks
// them:
//   all-gather      block for r: in              lands in r's out at self*count
//   all-to-all      block for r: in + r*count    lands in r's out at self*count
//   reduce-scatter  block for r: in + r*count    summed (fp32, own block first, then peers
//                                                in rotated order) into r's out
// The own block never leaves the GPU (copied, or summed first). The flag travels inside the
// data word (kernels/ptx/global.cuh: the 8-B halves of st/ld.volatile.v2.u64 are single-copy
// atomic), so a line is valid the moment its flags are: no fence, no signal, one NVLink
// trip. Half of every line is flag, so it only pays for small messages (the host caps it).
//
// Lines index (block, line): line u of a block holds its elements [u*8/e, (u+1)*8/e) and
// never spills into the next block, so a count whose block is not a multiple of 8 B gets a
// partial last line (loaded and stored element by element: nothing is read past a block of
// the input nor written past one of the output). When every block is a multiple of 8 B,
// every block starts on 8 B (the buffers are 256-B aligned) and one 8-B access moves a line.
//
// Reuse: the landing lines are double-buffered by epoch parity. Every launch of every rank
// receives at least one line from every peer (count >= 1), so a peer's launch e+1 cannot end
// before this GPU's launch e+1 has pushed, which starts only after this GPU's launch e (and
// every read of parity e&1) ended: the peer writes parity e&1 again at e+2 at the earliest.
// Flags are compared for equality with the epoch: a stale line holds e-2 or 0 (the host
// zeroes the lines before a point). Every launch runs every block and the grid is the same on
// every rank, so all blocks everywhere share one epoch: a line may be read by another block
// than the one that pushed it, which lets the two phases split the work differently.
// Outputs and inputs are touched by their own GPU only: no cross-GPU hazard on them.
#include "kernels/collectives/ll_lines.cuh"

#ifdef __CUDACC__
#include <type_traits>

#include "kernels/collectives/allreduce_ll.cuh"
#endif

namespace pk::coll {

struct LlSegConfig : LlLines {
  static constexpr int kThreads = 512;
  static constexpr uint64_t kLinesPerBlock = 256;  // lines one block pushes (all peers counted)
};

#ifdef __CUDACC__

// Payload u (8 B) of a block of `count` elements as raw bits: copies never convert.
template <class T>
struct LlPayload {
  static constexpr int kPer = 8 / sizeof(T);
  static constexpr int kBits = 8 * sizeof(T);
  using Bits = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;

  __device__ static uint2 load(const T* blk, uint64_t u, uint64_t count, bool whole) {
    if (whole) return reinterpret_cast<const uint2*>(blk)[u];
    const Bits* b = reinterpret_cast<const Bits*>(blk) + u * kPer;
    uint64_t w = 0;
#pragma unroll
    for (int i = 0; i < kPer; ++i)
      if (u * kPer + i < count) w |= static_cast<uint64_t>(b[i]) << (i * kBits);
    return make_uint2(static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32));
  }
  __device__ static void store(T* blk, uint64_t u, uint64_t count, bool whole, uint2 d) {
    if (whole) {
      reinterpret_cast<uint2*>(blk)[u] = d;
      return;
    }
    Bits* b = reinterpret_cast<Bits*>(blk) + u * kPer;
    const uint64_t w = static_cast<uint64_t>(d.y) << 32 | d.x;
#pragma unroll
    for (int i = 0; i < kPer; ++i)
      if (u * kPer + i < count) b[i] = static_cast<Bits>(w >> (i * kBits));
  }
};

// layout: kAllGather, kAllToAll or kReduceScatter. p.count: elements of one rank block.
// Push items are (peer k >= 1, line u), receive items (source k, line u) for the copies (k = 0
// the local block) and lines u for the reduction: consecutive threads take consecutive lines.
template <class T>
__global__ void __launch_bounds__(LlSegConfig::kThreads)
    segments_ll_kernel(const __grid_constant__ CollParams<T> p, int layout) {
  using P = LlPayload<T>;
  const int n = p.in.size, self = p.in.self;
  const int e = begin_epoch(p.sync);
  const uint64_t count = p.count, lines = LlSegConfig::lines(count, sizeof(T));
  const bool whole = LlSegConfig::whole_lines(count, sizeof(T));
  const uint64_t stride = layout == kAllGather ? 0 : count;  // the block for peer r: in + r*stride
  const uint64_t par = static_cast<uint64_t>(e & 1);
  auto line = [&](int owner, int src, uint64_t u) {
    return reinterpret_cast<char*>(p.scratch.at[owner]) +
           ((par * n + src) * lines + u) * LlSegConfig::kLineBytes;
  };
  const uint64_t flag = static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32;
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const T* in = p.in.local();
  T* out = p.out.local();

  const uint64_t pushes = static_cast<uint64_t>(n - 1) * lines;
  for (uint64_t i = first; i < pushes; i += step) {
    const int r = (self + 1 + static_cast<int>(i / lines)) % n;
    const uint64_t u = i % lines;
    const uint2 d = P::load(in + r * stride, u, count, whole);
    ptx::st_volatile_v2_u64(line(r, self, u), flag | d.x, flag | d.y);
  }

  auto poll = [&](int src, uint64_t u, uint2& d) {
    uint64_t a = 0, b = 0;
    const bool ok = spin_until(
        [&] {
          ptx::ld_volatile_v2_u64(line(self, src, u), a, b);
          return static_cast<int>(a >> 32) == e && static_cast<int>(b >> 32) == e;
        },
        p.sync.deadline, kWaitFlag | (static_cast<unsigned long long>(src) << 16));
    d = make_uint2(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    return ok;
  };
  bool ok = true;
  if (layout == kReduceScatter) {
    const T* own = in + static_cast<uint64_t>(self) * count;
    for (uint64_t u = first; ok && u < lines; u += step) {
      float acc[P::kPer] = {};
      const uint2 d = P::load(own, u, count, whole);
      add_payload<T>(acc, d.x, d.y);
      for (int k = 1; k < n && ok; ++k) {
        uint2 q;
        ok = poll((self + k) % n, u, q);
        add_payload<T>(acc, q.x, q.y);
      }
      if (ok) P::store(out, u, count, whole, pack_payload<T>(acc));
    }
  } else {
    const uint64_t items = static_cast<uint64_t>(n) * lines;
    for (uint64_t i = first; ok && i < items; i += step) {
      const int k = static_cast<int>(i / lines), s = (self + k) % n;
      const uint64_t u = i % lines;
      uint2 d;
      if (k == 0)
        d = P::load(in + static_cast<uint64_t>(self) * stride, u, count, whole);
      else
        ok = poll(s, u, d);
      if (ok) P::store(out + static_cast<uint64_t>(s) * count, u, count, whole, d);
    }
  }
  if (__syncthreads_and(ok)) end_epoch(p.sync, e);
}

#endif  // __CUDACC__

}  // namespace pk::coll
