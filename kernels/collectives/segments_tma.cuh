#pragma once
// All-gather, all-to-all and reduce-scatter (plain layouts) for large messages, warp-
// specialised: warp 0 of every block moves this rank's bytes to its peers with bulk copies
// (the transfer study's TMA pipeline: global -> smem -> peer, one elected thread keeping
// kDepth messages in flight), while the other warps do the local work at the same time:
//   all-gather / all-to-all  the block for this rank itself (a local copy);
//   reduce-scatter           the sum: own block + every peer's landing slot -> output,
//                            round by round, as the peers' rounds land.
// Without the split the local work would follow the NVLink traffic (the `push` kernel's
// reduce-scatter sums only after its whole push; at 1 GiB that is 0.4 ms of 2.2 ms).
//
// Work: each peer's block of `count` elements is cut into kTile-byte tiles; block b takes
// the same tile slice of every block on every rank, so block b of a receiver knows what
// block b of each sender wrote. Elements after the last whole tile (or all of them when a
// block is not 16-B aligned: bulk copies need 16-B addresses and sizes) go through
// registers, sliced over the blocks as well.
//
// Signals and memory ordering:
//  - all-gather / all-to-all write the peers' outputs directly: an enter exchange first
//    (the receivers are in this launch, so their outputs may be overwritten), a final
//    exchange last (every write into this rank's output has landed). Bulk writes are
//    complete for warp 0's elected thread after cp.async.bulk.wait_group 0; it orders them
//    with fence.proxy.async.global before the block's bar.sync, after which exchange()'s
//    st.release.sys publishes them (and the register tails, by bar.sync + cumulativity).
//  - reduce-scatter writes landing slots (double-buffered by epoch parity: a peer can be
//    one launch ahead, never two, since its launch e+1 cannot finish before this rank's
//    launch e+1 sends its rounds). Once kSignalLag stores of later rounds are committed, the
//    elected thread waits for every older bulk group (round j's stores are complete),
//    fences the async proxy, and st.release.sys's a sequence number
//    seq = (e - 1) * rounds + j + 1 to kPhaseData of every peer (one writer per word,
//    monotonic across launches and graph replays; the harness zeroes flags per point).
//    The summing warps ld.acquire.sys-poll it (one thread per peer, then bar.red among the
//    summing warps only, which also tells them all whether a wait timed out) and read the
//    round's tiles. The register tails are
//    stored by the summing warps before the block's first bar.sync, so round 0's release
//    publishes them too. No trailing barrier: the next launch's rounds need this rank's
//    data of that launch.
#include <type_traits>

#include "kernels/transfer_tma.cuh"
#include "kernels/collectives/coll_params.cuh"

namespace pk::coll {

struct SegTmaConfig {
  // Warp 0 issues bulk copies, warps 1..31 work locally. The local sum is latency-bound:
  // reduce-scatter 1 GiB took 2179 / 1760 / 1709 / 1617 us with 256 / 512 / 768 / 1024
  // threads (H200x2; the push alone, as the all-gather, takes 1478).
  static constexpr int kThreads = 1024;
  static constexpr int kLocalThreads = kThreads - 32;
  static constexpr uint32_t kTile = 16384;
  static constexpr uint32_t kDepth = 4;
  static constexpr uint64_t kRoundTiles = 16;  // reduce-scatter: tiles per peer between signals
  static constexpr int kSignalLag = 8;         // stores of later rounds in flight when a round is published
  static constexpr uint64_t kBytesPerBlock = 256 * 1024;
  static constexpr uint32_t kLocalBarrier = 1;  // named barrier of the summing warps
  static constexpr uint64_t smem_bytes() { return transfer::tma_smem_bytes(1, kDepth, kTile); }
};

enum SegTmaKind : int { kTmaGather = 0, kTmaAllToAll = 1, kTmaReduceScatter = 2 };

// Message m, round-major: round j holds tiles [t0 + j*round, t0 + min((j+1)*round, tiles))
// of every peer part, part after part (all-gather / all-to-all: one round of all tiles).
struct PeerTiles {
  const char* src[kMaxGpus];
  char* dst[kMaxGpus];
  uint64_t t0, round, tiles;
  int parts;
  __device__ uint64_t messages_through(uint64_t j) const {
    const uint64_t t = (j + 1) * round < tiles ? (j + 1) * round : tiles;
    return t * parts;
  }
  __device__ uint64_t offset(uint64_t m, int& k) const {
    const uint64_t j = m / (round * parts), in = m - j * round * parts;
    const uint64_t per = tiles - j * round < round ? tiles - j * round : round;
    k = static_cast<int>(in / per);
    return (t0 + j * round + in % per) * SegTmaConfig::kTile;
  }
  __device__ void load(uint32_t smem, uint32_t bar, uint64_t m) const {
    int k;
    const uint64_t off = offset(m, k);
    ptx::bulk_load(smem, src[k] + off, SegTmaConfig::kTile, bar);
  }
  __device__ void store(uint64_t m, uint32_t smem) const {
    int k;
    const uint64_t off = offset(m, k);
    ptx::bulk_store(dst[k] + off, smem, SegTmaConfig::kTile);
  }
};

template <class T>
__global__ void __launch_bounds__(SegTmaConfig::kThreads)
    segments_tma_kernel(const __grid_constant__ CollParams<T> p, const int kind) {
  constexpr int V = Elem<T>::kPerVec;
  constexpr uint64_t kTileElems = SegTmaConfig::kTile / sizeof(T);
  extern __shared__ unsigned char smem_raw[];
  const int n = p.in.size, self = p.in.self;
  const uint64_t count = p.count;
  const bool reduce = kind == kTmaReduceScatter;
  const uint32_t base = (ptx::smem_addr(smem_raw) + 127u) & ~127u;
  const uint32_t bars = base, stages = base + transfer::tma_barrier_bytes(1, SegTmaConfig::kDepth);
  const bool issuer = threadIdx.x < 32, leader = issuer && ptx::elect_one_sync();
  const uint32_t lt = threadIdx.x - 32;  // index among the local warps
  const int e = begin_epoch(p.sync);
  if (leader) {
    for (uint32_t s = 0; s < SegTmaConfig::kDepth; ++s) ptx::mbarrier_init(bars + 8u * s, 1);
    ptx::fence_mbarrier_init();
  }
  if (!reduce && !exchange(p.sync, kPhaseEnter, e)) return;

  // Where rank r's block starts in this rank's input, and where this rank's block lands at r.
  const T* in = p.in.local();
  const uint64_t par = static_cast<uint64_t>(e & 1) * n * p.slot_elems;
  auto src_for = [&](int r) { return in + (kind == kTmaGather ? 0 : static_cast<uint64_t>(r) * count); };
  auto dst_at = [&](int r) {
    return reduce ? p.scratch.at[r] + par + static_cast<uint64_t>(self) * p.slot_elems
                  : p.out.at[r] + static_cast<uint64_t>(self) * count;
  };
  const bool aligned = (count * sizeof(T)) % 16 == 0;
  const uint64_t tiles = aligned ? count / kTileElems : 0;
  const Slice ts = block_slice(tiles, blockIdx.x, gridDim.x);
  const Slice tail = block_slice(count - tiles * kTileElems, blockIdx.x, gridDim.x);
  const uint64_t tail0 = tiles * kTileElems;
  const uint64_t rounds =
      reduce ? (ts.hi - ts.lo + SegTmaConfig::kRoundTiles - 1) / SegTmaConfig::kRoundTiles : 1;
  const uint64_t rounds_or_one = rounds > 0 ? rounds : 1;  // every block signals at least once

  // Register tails to the peers first, so the first release publishes them.
  if (!issuer)
    for (int k = 1; k < n; ++k) {
      const int r = (self + k) % n;
      const T* src = src_for(r);
      T* dst = dst_at(r);
      for (uint64_t i = tail0 + tail.lo + lt; i < tail0 + tail.hi; i += SegTmaConfig::kLocalThreads) dst[i] = src[i];
    }
  __syncthreads();

  bool ok = true;
  if (issuer) {
    if (leader) {
      const uint64_t mine = ts.hi - ts.lo, R = reduce ? SegTmaConfig::kRoundTiles : (mine > 0 ? mine : 1);
      PeerTiles a{};
      a.t0 = ts.lo;
      a.round = R;
      a.tiles = mine;
      a.parts = n - 1;
      for (int k = 1; k < n; ++k) {
        const int r = (self + k) % n;
        a.src[k - 1] = reinterpret_cast<const char*>(src_for(r));
        a.dst[k - 1] = reinterpret_cast<char*>(dst_at(r));
      }
      auto signal = [&](uint64_t j) {
        const int seq = (e - 1) * static_cast<int>(rounds_or_one) + static_cast<int>(j) + 1;
        for (int k = 1; k < n; ++k) ptx::st_release_sys(flag_at(p.sync, (self + k) % n, kPhaseData, self), seq);
      };
      // Round j is published once kSignalLag stores of later rounds are committed: waiting
      // for all but the newest kSignalLag bulk groups then completes round j without
      // draining this SM's NVLink queue (draining after every round: 2103 us at 1 GiB, the
      // all-gather without rounds 1478 us).
      uint64_t signalled = 0;
      auto after_store = [&](uint64_t m) {
        if (!reduce) return;
        while (signalled + 1 < rounds_or_one &&
               m + 1 >= a.messages_through(signalled) + SegTmaConfig::kSignalLag) {
          ptx::bulk_wait_group<SegTmaConfig::kSignalLag>();
          ptx::fence_proxy_async_global();
          signal(signalled++);
        }
      };
      if (mine > 0) {
        const transfer::TmaPipelineParams tp{mine * (n - 1), SegTmaConfig::kTile, SegTmaConfig::kTile,
                                             SegTmaConfig::kDepth, p.sync.deadline};
        ok = transfer::tma_pipeline(a, tp, 0, 1, bars, stages, after_store);  // ends with bulk_wait_group 0
      }
      ptx::fence_proxy_async_global();
      if (reduce && ok)
        while (signalled < rounds_or_one) signal(signalled++);
    }
    ok = __all_sync(0xffffffffu, ok);
  } else if (!reduce) {
    // Own block: a local copy of every element (tiles and tail) in this block's share.
    T* out = p.out.local() + static_cast<uint64_t>(self) * count;
    const T* src = src_for(self);
    const Slice mine = block_slice(aligned ? count / V : 0, blockIdx.x, gridDim.x);
    copy_vectors(reinterpret_cast<uint4*>(out) + mine.lo, reinterpret_cast<const uint4*>(src) + mine.lo, mine.hi - mine.lo, lt,
                 SegTmaConfig::kLocalThreads);
    const Slice rest = block_slice(count - (aligned ? count / V * V : 0), blockIdx.x, gridDim.x);
    const uint64_t rest0 = aligned ? count / V * V : 0;
    for (uint64_t i = rest0 + rest.lo + lt; i < rest0 + rest.hi; i += SegTmaConfig::kLocalThreads) out[i] = src[i];
  } else {
    // Sum round by round as the peers' rounds land: own block + every peer's slot.
    const T* own = src_for(self);
    const T* slots = p.scratch.local() + par;
    T* out = p.out.local();
    // Whole vectors of [lo, hi) (element offsets), kCopyUnroll of them per thread summed
    // before the first store (as copy_vectors): one at a time the sum is latency-bound.
    auto sum_vectors = [&](uint64_t lo, uint64_t v0, auto m) {
      float acc[m.value][V] = {};
#pragma unroll
      for (int u = 0; u < m.value; ++u) {
        const uint64_t x = lo + (v0 + u * uint64_t(SegTmaConfig::kLocalThreads)) * V;
        add_vec<T>(acc[u], ptx::ld_v4(own + x));
#pragma unroll
        for (int k = 1; k < kMaxGpus; ++k)
          if (k < n) add_vec<T>(acc[u], ptx::ld_v4(slots + static_cast<uint64_t>((self + k) % n) * p.slot_elems + x));
      }
#pragma unroll
      for (int u = 0; u < m.value; ++u)
        ptx::st_v4(out + lo + (v0 + u * uint64_t(SegTmaConfig::kLocalThreads)) * V, Elem<T>::pack(acc[u]));
    };
    auto sum_range = [&](uint64_t lo, uint64_t hi) {
      constexpr uint64_t kT = SegTmaConfig::kLocalThreads;
      const uint64_t nv = (hi - lo) / V;
      uint64_t v = lt;
      for (; v + (kCopyUnroll - 1) * kT < nv; v += kCopyUnroll * kT)
        sum_vectors(lo, v, std::integral_constant<int, kCopyUnroll>{});
      for (; v < nv; v += kT) sum_vectors(lo, v, std::integral_constant<int, 1>{});
    };
    for (uint64_t j = 0; j < rounds_or_one && ok; ++j) {
      const int seq = (e - 1) * static_cast<int>(rounds_or_one) + static_cast<int>(j) + 1;
      if (lt < static_cast<uint32_t>(n) && static_cast<int>(lt) != self) {
        const int* f = flag_at(p.sync, self, kPhaseData, static_cast<int>(lt));
        ok = spin_until([&] { return ptx::ld_acquire_sys(f) >= seq; }, p.sync.deadline,
                        kWaitFlag | (static_cast<unsigned long long>(kPhaseData) << 8) |
                            (static_cast<unsigned long long>(lt) << 16));
      }
      ok = ptx::bar_red_and(SegTmaConfig::kLocalBarrier, SegTmaConfig::kLocalThreads, ok);
      if (!ok) break;
      const uint64_t t0 = ts.lo + j * SegTmaConfig::kRoundTiles;
      const uint64_t t1 = t0 + SegTmaConfig::kRoundTiles < ts.hi ? t0 + SegTmaConfig::kRoundTiles : ts.hi;
      if (t1 > t0) sum_range(t0 * kTileElems, t1 * kTileElems);
      if (j == 0)  // the register tails landed with round 0
        for (uint64_t i = tail0 + tail.lo + lt; i < tail0 + tail.hi; i += SegTmaConfig::kLocalThreads) {
          float acc = Elem<T>::to_f32(own[i]);
          for (int k = 1; k < n; ++k)
            acc += Elem<T>::to_f32(slots[static_cast<uint64_t>((self + k) % n) * p.slot_elems + i]);
          out[i] = Elem<T>::from_f32(acc);
        }
    }
  }
  if (!__syncthreads_and(ok)) return;
  if (!reduce && !exchange(p.sync, kPhaseB, e)) return;
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
