#pragma once
// Get latency as a dependent chain: each load's value is the index of the next slot, so a
// load cannot start before the previous one returned. One thread; clock64 around every hop.
// The chain is pk::sync::build_chase_kernel's (a full-period LCG over power-of-two slots
// 128 B apart, so consecutive hops land on unrelated lines and no line is read twice while
// hops < slots: L1 never serves a hop, whatever the load's caching). The style is a policy
// with load(index) -> next index.
#include <cstdint>

#include "kernels/sync_library_style.cuh"
#include "kernels/ptx.cuh"
#include "kernels/primitives/element_put.cuh"

namespace pk::prim {

constexpr uint64_t kChainStrideWords = 16;  // 128-B slots, nvbandwidth's stride

template <class Load>
__global__ void chain_kernel(const Load l, int hops, uint32_t* cycles, TimingRecord* rec) {
  if (threadIdx.x != 0) return;
  sync::record_start(rec);
  uint64_t idx = 0;
  for (int i = 0; i < hops; ++i) {
    const uint64_t t0 = pk::ptx::clock64_cycles();
    idx = l.load(idx);
    cycles[i] = static_cast<uint32_t>(pk::ptx::clock64_cycles() - t0);
  }
  sync::record_end(rec);
  rec->sink = idx;
}

// PK style, weak: a plain ld.global through the base held in a register.
struct PkLoadWeak {
  const uint64_t* base;
  __device__ uint64_t load(uint64_t idx) const { return ptx::ld_weak_u64(base + idx); }
};
// PK style, relaxed: ld.relaxed.sys (a strong load: never an L1 hit on stale data).
struct PkLoadRelaxed {
  const uint64_t* base;
  __device__ uint64_t load(uint64_t idx) const { return pk::ptx::ld_relaxed_sys_u64(base + idx); }
};

// Makes a freshly built chain resident in its owner's L2. The builder writes 8 B into each
// 128-B slot: the L2 then holds partially written sectors, and a remote read of one is a
// fill from HBM (first GPU run: such a chain read like the 1-GiB one, ~1 us a hop). Reading
// every 16 B once on the owner completes every sector. The xor keeps the loads alive.
static __global__ void l2_fill_kernel(const uint4* p, uint64_t n, unsigned long long* sink) {
  unsigned acc = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint4 v = ptx::ld_weak_v4(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // practically never: only defeats dead-code removal
}

// Where the chain is after `hops` hops from slot 0 (host reference for the check).
inline uint64_t chain_after(uint64_t slots, uint64_t hops) {
  uint64_t idx = 0;
  for (uint64_t i = 0; i < hops; ++i) {
    const uint64_t s = idx / kChainStrideWords;
    idx = ((s * 1103515245ull + 12345ull) & (slots - 1)) * kChainStrideWords;
  }
  return idx;
}

// nvbandwidth's device_to_device_latency_sm, as its kernels.cu writes it: a linked list of
// 8-B nodes, node i pointing at node (i + 16) mod n (128 B ahead, in address order), over a
// 2 MiB buffer; one thread of block `target` follows `accesses` links with weak loads; the
// host times each launch with events and divides by the accesses of all launches.
struct NvbwNode {
  NvbwNode* next;
};
// Written by the reader (through its peer mapping), so the stored addresses are the
// reader's view of the owner's memory.
static __global__ void nvbw_build_kernel(NvbwNode* nodes, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    nodes[i].next = &nodes[(i + 16) % n];
}
static __global__ void nvbw_chase_kernel(NvbwNode* start, unsigned accesses, unsigned target, unsigned long long* sink) {
  if (blockIdx.x != target) return;
  NvbwNode* p = start;
  for (unsigned i = 0; i < accesses; ++i) p = p->next;
  if (p == nullptr) __trap();
  if (target == 0) *sink = reinterpret_cast<unsigned long long>(p);
}

}  // namespace pk::prim
