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
  // Reduce-scatter: 16-B vectors per summing thread loaded (own and every slot) before the
  // first store. 1024 threads cap the kernel at 64 registers; the bf16 kernel spills (80 B
  // before this sum, at 1 vector per thread none), outside the summing loop (sm_90a SASS).
  static constexpr int kSumUnroll = 4;
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

// Block blockIdx.x's plan for launch (epoch) e: where rank r's block starts in this rank's
// input, where this rank's block lands at r, and this block's share of the tiles and of the
// register tail.
template <class T>
struct SegPlan {
  const CollParams<T>& p;
  int kind, n, self, e;
  bool reduce, aligned;     // aligned: a block is 16-B aligned (else no tiles)
  uint64_t count;
  const T* in;
  uint64_t par;             // reduce-scatter: this launch's half of the landing slots (epoch parity)
  uint64_t tail0;           // the register tail starts after a block's whole tiles
  Slice ts, tail;           // this block's tiles and tail elements
  uint64_t mine;            // ts.hi - ts.lo: one value for the rounds and the issuer (two: the PTX changes)
  uint64_t rounds_or_one;   // reduce-scatter rounds (every block signals at least once)
  __device__ __forceinline__ const T* src_for(int r) const {
    return in + (kind == kTmaGather ? 0 : static_cast<uint64_t>(r) * count);
  }
  __device__ __forceinline__ T* dst_at(int r) const {
    return reduce ? p.scratch.at[r] + par + static_cast<uint64_t>(self) * p.slot_elems
                  : p.out.at[r] + static_cast<uint64_t>(self) * count;
  }
  // The sequence number that publishes round j of launch e (monotonic across launches).
  __device__ __forceinline__ int seq(uint64_t j) const {
    return (e - 1) * static_cast<int>(rounds_or_one) + static_cast<int>(j) + 1;
  }
};

// n, self and count are read from p by the kernel at its start (read here, or the rest computed
// in another order, and the PTX changes).
template <class T>
__device__ __forceinline__ SegPlan<T> seg_plan(const CollParams<T>& p, int kind, int e, int n, int self,
                                               uint64_t count) {
  constexpr uint64_t kTileElems = SegTmaConfig::kTile / sizeof(T);
  const bool reduce = kind == kTmaReduceScatter;
  const T* in = p.in.local();
  const uint64_t par = static_cast<uint64_t>(e & 1) * n * p.slot_elems;
  const bool aligned = (count * sizeof(T)) % 16 == 0;
  const uint64_t tiles = aligned ? count / kTileElems : 0;
  const Slice ts = block_slice(tiles, blockIdx.x, gridDim.x);
  const Slice tail = block_slice(count - tiles * kTileElems, blockIdx.x, gridDim.x);
  const uint64_t tail0 = tiles * kTileElems;
  const uint64_t mine = ts.hi - ts.lo;
  const uint64_t rounds = reduce ? (mine + SegTmaConfig::kRoundTiles - 1) / SegTmaConfig::kRoundTiles : 1;
  return SegPlan<T>{p, kind, n, self, e, reduce, aligned, count, in, par, tail0, ts, tail, mine,
                    rounds > 0 ? rounds : 1};
}

// The local warps' register copy of the tail elements to every peer.
template <class T>
__device__ __forceinline__ void seg_send_tails(const SegPlan<T>& s, uint32_t lt) {
  for (int k = 1; k < s.n; ++k) {
    const int r = (s.self + k) % s.n;
    const T* src = s.src_for(r);
    T* dst = s.dst_at(r);
    for (uint64_t i = s.tail0 + s.tail.lo + lt; i < s.tail0 + s.tail.hi; i += SegTmaConfig::kLocalThreads)
      dst[i] = src[i];
  }
}

// Reduce-scatter: publishes round j to every peer (st.release.sys of its sequence number).
template <class T>
__device__ __forceinline__ void seg_signal(const SegPlan<T>& s, uint64_t j) {
  const int seq = s.seq(j);
  for (int k = 1; k < s.n; ++k) ptx::st_release_sys(flag_at(s.p.sync, (s.self + k) % s.n, kPhaseData, s.self), seq);
}

// Warp 0's elected thread: this block's messages `a` through the bulk-copy pipeline (global ->
// smem -> peer, kDepth in flight), then (reduce-scatter) the signals of the rounds not yet
// published. False if a wait timed out. Bulk writes are generic-proxy-visible only after
// their bulk group completed and fence.proxy.async.global: before every signal, and before
// the kernel's bar.sync that precedes exchange()'s release.
template <class T>
__device__ __forceinline__ bool seg_push(const SegPlan<T>& s, const PeerTiles& a, uint32_t bars, uint32_t stages) {
  // Round j is published once kSignalLag stores of later rounds are committed: waiting
  // for all but the newest kSignalLag bulk groups then completes round j without
  // draining this SM's NVLink queue (draining after every round: 2103 us at 1 GiB, the
  // all-gather without rounds 1478 us).
  uint64_t signalled = 0;
  auto after_store = [&](uint64_t m) {
    if (!s.reduce) return;
    while (signalled + 1 < s.rounds_or_one &&
           m + 1 >= a.messages_through(signalled) + SegTmaConfig::kSignalLag) {
      ptx::bulk_wait_group<SegTmaConfig::kSignalLag>();  // round `signalled`'s stores complete
      ptx::fence_proxy_async_global();
      seg_signal(s, signalled++);
    }
  };
  bool ok = true;
  if (s.mine > 0) {
    const transfer::TmaPipelineParams tp{s.mine * (s.n - 1), SegTmaConfig::kTile, SegTmaConfig::kTile,
                                         SegTmaConfig::kDepth, s.p.sync.deadline};
    ok = transfer::tma_pipeline(a, tp, 0, 1, bars, stages, after_store);  // ends with bulk_wait_group 0
  }
  ptx::fence_proxy_async_global();
  if (s.reduce && ok)
    while (signalled < s.rounds_or_one) seg_signal(s, signalled++);
  return ok;
}

// All-gather / all-to-all, the local warps: own block, a local copy of every element (tiles
// and tail) in this block's share.
template <class T>
__device__ __forceinline__ void seg_copy_own(const SegPlan<T>& s, uint32_t lt) {
  constexpr int V = Elem<T>::kPerVec;
  const uint64_t count = s.count;
  T* out = s.p.out.local() + static_cast<uint64_t>(s.self) * count;
  const T* src = s.src_for(s.self);
  const Slice mine = block_slice(s.aligned ? count / V : 0, blockIdx.x, gridDim.x);
  copy_vectors(reinterpret_cast<uint4*>(out) + mine.lo, reinterpret_cast<const uint4*>(src) + mine.lo, mine.hi - mine.lo, lt,
               SegTmaConfig::kLocalThreads);
  const Slice rest = block_slice(count - (s.aligned ? count / V * V : 0), blockIdx.x, gridDim.x);
  const uint64_t rest0 = s.aligned ? count / V * V : 0;
  for (uint64_t i = rest0 + rest.lo + lt; i < rest0 + rest.hi; i += SegTmaConfig::kLocalThreads) out[i] = src[i];
}

// Reduce-scatter, the local warps: sum round by round as the peers' rounds land, own block +
// every peer's slot -> output. One thread per peer polls its sequence number, then bar.red
// among the summing warps only (which also tells them all whether a wait timed out). ok:
// false if one did (the kernel's flag, passed in: a returned bool changes the PTX).
template <class T>
__device__ __forceinline__ void seg_sum_rounds(const SegPlan<T>& s, bool& ok) {
  constexpr int V = Elem<T>::kPerVec;
  constexpr uint64_t kTileElems = SegTmaConfig::kTile / sizeof(T);
  const CollParams<T>& p = s.p;
  const int n = s.n, self = s.self;
  const uint32_t lt = threadIdx.x - 32;  // index among the local warps (a parameter changes the PTX)
  const T* own = s.src_for(self);
  const T* slots = p.scratch.local() + s.par;
  T* out = p.out.local();
  // Whole vectors of [lo, hi) (element offsets), kSumUnroll of them per thread summed
  // before the first store: sum_slot_vectors loads all of them from the own block and the
  // first peer's slot before unpacking any (2 x kSumUnroll loads in flight on 2 ranks), then
  // each further peer's kSumUnroll together. The per-vector order before compiled (bf16,
  // sm_90a SASS) to 3 own loads ahead, then every slot load alone in its peer branch and
  // used before the next was issued: one slot load in flight per thread.
  constexpr uint64_t kT = SegTmaConfig::kLocalThreads;
  auto sum_vectors = [&](uint64_t lo, uint64_t v0, auto m) {
    constexpr int U = decltype(m)::value;
    const uint64_t x = lo + v0 * V;
    float acc[U][V];
    sum_slot_vectors<T, U, true>(acc, p, own, slots, x, x, kT * V, n, self);
#pragma unroll
    for (int u = 0; u < U; ++u) ptx::st_v4(out + x + u * kT * V, Elem<T>::pack(acc[u]));
  };
  auto sum_range = [&](uint64_t lo, uint64_t hi) {
    for_vectors<SegTmaConfig::kSumUnroll>(uint64_t(lt), (hi - lo) / V, kT,
                                          [&](uint64_t v, auto m) { sum_vectors(lo, v, m); });
  };
  for (uint64_t j = 0; j < s.rounds_or_one && ok; ++j) {
    const int seq = s.seq(j);
    if (lt < static_cast<uint32_t>(n) && static_cast<int>(lt) != self) {
      const int* f = flag_at(p.sync, self, kPhaseData, static_cast<int>(lt));
      ok = spin_until([&] { return ptx::ld_acquire_sys(f) >= seq; }, p.sync.deadline,
                      kWaitFlag | (static_cast<unsigned long long>(kPhaseData) << 8) |
                          (static_cast<unsigned long long>(lt) << 16));
    }
    ok = ptx::bar_red_and(SegTmaConfig::kLocalBarrier, SegTmaConfig::kLocalThreads, ok);
    if (!ok) break;
    const uint64_t t0 = s.ts.lo + j * SegTmaConfig::kRoundTiles;
    const uint64_t t1 = t0 + SegTmaConfig::kRoundTiles < s.ts.hi ? t0 + SegTmaConfig::kRoundTiles : s.ts.hi;
    if (t1 > t0) sum_range(t0 * kTileElems, t1 * kTileElems);
    if (j == 0)  // the register tails landed with round 0
      for (uint64_t i = s.tail0 + s.tail.lo + lt; i < s.tail0 + s.tail.hi; i += SegTmaConfig::kLocalThreads) {
        float acc = Elem<T>::to_f32(own[i]);
        for (int k = 1; k < n; ++k)
          acc += Elem<T>::to_f32(slots[static_cast<uint64_t>((self + k) % n) * p.slot_elems + i]);
        out[i] = Elem<T>::from_f32(acc);
      }
  }
}

template <class T>
__global__ void __launch_bounds__(SegTmaConfig::kThreads)
    segments_tma_kernel(const __grid_constant__ CollParams<T> p, const int kind) {
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
  const SegPlan<T> plan = seg_plan(p, kind, e, n, self, count);

  // Register tails to the peers first, so the first release publishes them.
  if (!issuer) seg_send_tails(plan, lt);
  __syncthreads();

  bool ok = true;
  if (issuer) {
    if (leader) {
      // This block's messages (filled here: in a function of its own the PTX changes).
      const uint64_t mine = plan.mine, R = reduce ? SegTmaConfig::kRoundTiles : (mine > 0 ? mine : 1);
      PeerTiles a{};
      a.t0 = plan.ts.lo;
      a.round = R;
      a.tiles = mine;
      a.parts = n - 1;
      for (int k = 1; k < n; ++k) {
        const int r = (self + k) % n;
        a.src[k - 1] = reinterpret_cast<const char*>(plan.src_for(r));
        a.dst[k - 1] = reinterpret_cast<char*>(plan.dst_at(r));
      }
      ok = seg_push(plan, a, bars, stages);
    }
    ok = __all_sync(0xffffffffu, ok);
  } else if (!reduce) {
    seg_copy_own(plan, lt);
  } else {
    seg_sum_rounds(plan, ok);
  }
  if (!__syncthreads_and(ok)) return;
  if (!reduce && !exchange(p.sync, kPhaseB, e)) return;
  end_epoch(p.sync, e);
}

}  // namespace pk::coll
