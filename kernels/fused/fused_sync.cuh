#pragma once
// Signals of the fused kernels: where they live, what each value means, and the memory
// ordering of every one of them.
//
// Each fused kernel instance gets its own zeroed region of a symmetric buffer (the host
// carves it, fused_sync_ints() says how large): this GPU's epoch counters, handshake slots,
// a completion counter and per-unit (or per-row) flags. Every GPU's copy is reached through
// a PeerTable passed by value.
//
// Epochs. A launch's epoch e = (launches so far) + 1, kept per block in device memory: the
// block's first role to run reads epochs[block] + 1 into shared memory (block_epoch()), its
// last use writes e back. The next launch (stream order) reads e. A flag or slot only ever
// receives the epoch of the launch that wrote it, which grows by one per launch, so nothing
// is reset between launches and graph replays stay correct; a counter that several writers
// add to is compared with e * (additions per launch). Every GPU launches a kernel instance the
// same number of times, so every block of every GPU agrees on e.
//
// Ordering. A slot or flag is one word with one writer. The writer publishes data and then
// the word with a release (st.release / red.release; .sys when another GPU reads the data,
// .gpu when only this GPU's blocks do); the reader polls with an acquire of the same scope
// and only then touches the data. Data written by TMA (the async proxy) is complete only
// after the issuing thread's cp.async.bulk.wait_group, and needs fence.proxy.async.global
// before a generic-proxy release publishes it; data that TMA reads after a generic-proxy
// acquire gets the same fence on the reader's side. Every wait is bounded by the Deadline and
// records a timeout instead of hanging.
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/peer_table.cuh"
#include "kernels/ptx.cuh"
#include "kernels/spin_wait.cuh"
#ifdef __CUDACC__
#include "kernels/collectives/coll_types.cuh"  // bf16 element traits (device code)
#endif

namespace pk::fused {

inline constexpr int kMaxBlocks = 160;  // >= SMs of any GPU the suite targets (H100/H200: 132)

// Handshake slots: slot (kind, block, src) of GPU g is written only by GPU src.
enum SlotKind : int {
  kSlotZeroed = 0,      // intra-SM reductions: "my output is zeroed for epoch e, add into it"
  kSlotShardReady = 1,  // all-gather: "my shard of A is ready for epoch e, read it"
  kSlotEnter = 2,       // standalone collectives: "my input is ready" (per block)
  kSlotLeave = 3,       // standalone collectives: "I have finished reading your memory" (per block)
  kSlotKinds = 4,
};

// Wait tags (DeviceStatus::detail): what a timed-out wait was for.
enum FusedWait : unsigned long long {
  kWaitZeroed = 0x100,
  kWaitShard = 0x200,
  kWaitUnit = 0x300,
  kWaitRow = 0x400,
  kWaitDone = 0x500,
  kWaitEnter = 0x600,
  kWaitLeave = 0x700,
};

// Layout of one instance's region, in ints.
__host__ __device__ constexpr int64_t sync_epochs_at() { return 0; }
__host__ __device__ constexpr int64_t sync_slots_at() { return kMaxBlocks; }
__host__ __device__ constexpr int64_t sync_done_at() { return sync_slots_at() + int64_t(kSlotKinds) * kMaxBlocks * kMaxGpus; }
__host__ __device__ constexpr int64_t sync_flags_at() { return sync_done_at() + 64; }  // own 256-B line for the counter
__host__ __device__ constexpr int64_t fused_sync_ints(int64_t flags) { return (sync_flags_at() + flags + 63) / 64 * 64; }
__host__ __device__ constexpr int slot_index(int kind, int block, int src) {
  return (kind * kMaxBlocks + block) * kMaxGpus + src;
}

struct FusedSync {
  int* epochs;           // this GPU's epoch counters [kMaxBlocks] (never read by peers)
  PeerTable<int> slots;  // every GPU's handshake slots
  PeerTable<int> done;   // every GPU's completion counter
  PeerTable<int> flags;  // every GPU's unit / row flags
};

#ifdef __CUDACC__

// This block's epoch for the current launch (shared memory, set by the block's first role).
__device__ __forceinline__ int& block_epoch() {
  __shared__ int epoch;
  return epoch;
}

__device__ __forceinline__ int begin_block_epoch(const FusedSync& s) {
  const int e = s.epochs[blockIdx.x] + 1;
  block_epoch() = e;
  return e;
}
__device__ __forceinline__ void end_block_epoch(const FusedSync& s, int e) { s.epochs[blockIdx.x] = e; }

// Tells GPU `to` (maybe this one) that this GPU reached `kind` of epoch e (block `block`).
__device__ __forceinline__ void signal_slot(const FusedSync& s, int kind, int block, int to, int e) {
  ptx::st_release_sys(s.slots.at[to] + slot_index(kind, block, s.slots.self), e);
}
// Waits until GPU `from` signalled `kind` of at least epoch e to this GPU.
__device__ __forceinline__ bool wait_slot(const FusedSync& s, int kind, int block, int from, int e,
                                          const Deadline& d, unsigned long long tag) {
  return wait_flag_geq_sys(s.slots.local() + slot_index(kind, block, from), e, d,
                           tag | static_cast<unsigned long long>(from));
}

// ---- 16-byte vectors of bf16 (eight elements), summed in fp32 ----
// Accesses: ptx::ld_global_v4 / st_global_v4 (kernels/ptx.cuh); sums: the collectives'
// element traits (coll::add_vec, coll::Elem::pack), so both studies round alike.
using coll::add_vec;
using Bf16 = coll::Elem<__nv_bfloat16>;

#endif  // __CUDACC__

}  // namespace pk::fused
