#pragma once
// Signal one-way latency as a ping-pong between two GPUs, one thread each. Round i: the
// initiator sends (optionally 16 B of data, then the signal i + 1), waits for the answer and
// times the round trip; the responder waits, checks, answers. Each GPU polls its own flag
// (remote write, local poll). Every wait of ours is bounded (spin_until with the deadline).
// A library's own wait that cannot time out is either the whole wait (kApiWait: how the
// library's perftests time it; a bounded handshake first) or polled by us first and called
// once the value is there, so it returns at its first load (the labelled bounded variant).
// The style is a policy with
//   send(i)      data (if any) and the signal of round i
//   arrived(i)   one bounded-poll test: has the partner's signal of round i come?
//   received(i)  after the poll: the style's own wait / fence, then check the data of round
//                i; returns 1 if the data was wrong (0 without data)
#include <cstdint>

#include "kernels/spin_wait.cuh"
#include "kernels/ptx.cuh"
#include "kernels/primitives/element_put.cuh"
#include "kernels/primitives/ordering.cuh"

namespace pk::prim {

// The 16-B payload of round i: never zero, different every round.
__host__ __device__ __forceinline__ uint4 round_payload(int i, int sender) {
  const uint32_t x = 0x9E3779B9u * static_cast<uint32_t>(i + 1) + static_cast<uint32_t>(sender);
  return make_uint4(x | 1u, ~x, x ^ 0xA5A5A5A5u, static_cast<uint32_t>(i + 1));
}
__device__ __forceinline__ bool same_payload(uint4 a, uint4 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// A side with kApiWait waits inside received(i) with its library's own call alone (no poll
// of ours, no timeout), after a bounded meet_partner(d) before the loop.
template <class Side>
__global__ void pingpong_kernel(const Side s, bool initiator, int iters, uint32_t* cycles, TimingRecord* rec,
                                unsigned* mismatches, Deadline d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  constexpr bool api_wait = requires { requires Side::kApiWait; };
  if constexpr (api_wait)
    if (!s.meet_partner(d)) return;
  unsigned bad = 0;
  if (initiator) sync::record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    if (initiator) s.send(i);
    if constexpr (!api_wait)
      if (!spin_until([&] { return s.arrived(i); }, d, kWaitFlag)) return;
    bad += s.received(i);
    if (initiator) cycles[i] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
    else s.send(i);
  }
  if (initiator) sync::record_end(rec);
  *mismatches = bad;
}

// PK style: flag and payload addresses taken from the symmetric tables once (registers).
// The payload is read from a local source array (as every style does: NVSHMEM's put reads a
// source buffer) and stored with one weak 16-B store before the signal.
template <class Order, bool WithData>
struct PkSide {
  int* peer_flag;
  const int* my_flag;
  uint4* peer_data;
  const uint4* my_data;
  const uint4* src;  // src[i]: this side's payload of round i
  int partner;
  __device__ void send(int i) const {
    if constexpr (WithData) *peer_data = src[i];
    Order::signal(peer_flag, i + 1);
  }
  __device__ bool arrived(int i) const { return Order::poll(my_flag) >= i + 1; }
  __device__ unsigned received(int i) const {
    Order::after_wait();
    if constexpr (WithData) return same_payload(ptx::ld_weak_v4(my_data), round_payload(i, partner)) ? 0u : 1u;
    return 0u;
  }
};

// The LL ("low latency") protocol, as NCCL's LL uses it: the flag travels inside every
// 8-B word (4 B of data, 4 B of flag = round + 1), and an aligned 64-bit access is
// single-copy atomic, so a word that shows this round's flag holds this round's data. No
// fence on either side; the price is bandwidth: 16 B of data take 32 B (two v2.u64 stores).
struct PkLLSide {
  unsigned long long* peer_words;  // 4 words at the partner
  const unsigned long long* my_words;
  const uint4* src;
  int partner;
  __device__ static unsigned long long word(uint32_t data, int i) {
    return (static_cast<unsigned long long>(static_cast<uint32_t>(i + 1)) << 32) | data;
  }
  __device__ void send(int i) const {
    const uint4 d = ptx::ld_weak_v4(src + i);
    ptx::st_volatile_v2_u64(peer_words, word(d.x, i), word(d.y, i));
    ptx::st_volatile_v2_u64(peer_words + 2, word(d.z, i), word(d.w, i));
  }
  __device__ bool arrived(int i) const {
    unsigned long long w[4];
    ptx::ld_volatile_v2_u64(my_words, w[0], w[1]);
    ptx::ld_volatile_v2_u64(my_words + 2, w[2], w[3]);
    const uint32_t f = static_cast<uint32_t>(i + 1);
    return uint32_t(w[0] >> 32) == f && uint32_t(w[1] >> 32) == f && uint32_t(w[2] >> 32) == f &&
           uint32_t(w[3] >> 32) == f;
  }
  __device__ unsigned received(int i) const {
    unsigned long long w[4];
    ptx::ld_volatile_v2_u64(my_words, w[0], w[1]);
    ptx::ld_volatile_v2_u64(my_words + 2, w[2], w[3]);
    const uint4 d = make_uint4(uint32_t(w[0]), uint32_t(w[1]), uint32_t(w[2]), uint32_t(w[3]));
    return same_payload(d, round_payload(i, partner)) ? 0u : 1u;
  }
};

// Fills src[i] = round_payload(i, sender) for the sender's rounds.
static __global__ void payload_fill_kernel(uint4* src, int rounds, int sender) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rounds; i += gridDim.x * blockDim.x)
    src[i] = round_payload(i, sender);
}

// A barrier across GPUs, one thread each, shaped like NCCL's LSA barrier: every GPU has an
// inbox of one slot per GPU; round i stores i + 1 into this GPU's slot of every peer's
// inbox (one store per peer, no read-modify-write, nothing to this GPU's own memory), then
// polls its own inbox until every peer's slot shows i + 1. The ordering policy decides the
// store and the poll: release/acquire to order the data around the barrier, relaxed to
// measure what the barrier costs when it orders nothing.
template <class Order>
struct PkBarrier {
  PeerTable<int> inbox;  // inbox.at[g]: GPU g's inbox (slot s written by GPU s)
  __device__ bool sync(int i, const Deadline& d) const {
    const int self = inbox.self;
    for (int g = 0; g < inbox.size; ++g)
      if (g != self) Order::signal(inbox.at[g] + self, i + 1);
    const int* mine = inbox.at[self];
    for (int g = 0; g < inbox.size; ++g)
      if (g != self && !spin_until([&] { return Order::poll(mine + g) >= i + 1; }, d, kWaitBarrier)) return false;
    Order::after_wait();
    return true;
  }
};

template <class Barrier>
__global__ void barrier_kernel(const Barrier b, int iters, uint32_t* cycles, TimingRecord* rec, Deadline d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  sync::record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    if (!b.sync(i, d)) return;
    cycles[i] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
  }
  sync::record_end(rec);
}

}  // namespace pk::prim
