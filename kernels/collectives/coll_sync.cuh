#pragma once
// Signals of the device-initiated collectives: per-block flags in symmetric memory and a
// per-block epoch counter in device memory.
//
// Every flag slot has one writer (rank `src`, block `b`, phase) and one reader (its owner),
// and only ever receives the epoch number of the operation that wrote it, which grows by
// one per launch: a slot never needs resetting and no two GPUs write one word. The epoch
// lives in device memory (read at the start of a launch, stored at its end), so a CUDA
// graph that replays the same kernel with the same parameters still counts 1, 2, 3, ...
// A launch of the same kernel follows the previous one in stream order, so the store of
// epoch e is visible when launch e + 1 reads it.
//
// Memory ordering of a signal: every thread of the block finishes its stores (peer stores
// included) and passes __syncthreads; then one thread per peer stores the epoch with
// st.release.sys. bar.sync orders the block's earlier stores before that release, and a
// release is cumulative, so they are published with it. The waiter polls with
// ld.acquire.sys, then __syncthreads passes the acquired view to the rest of its block.
// Every wait is bounded by the Deadline: a rank that never arrives ends the launch with
// kStatusTimeout (detail = kWaitBarrier | phase << 8 | src << 16) instead of a hang.
#include "kernels/peer_table.cuh"
#include "kernels/ptx.cuh"
#include "kernels/ptx/griddep.cuh"
#include "kernels/spin_wait.cuh"

namespace pk::coll {

constexpr int kMaxBlocks = 160;  // >= the SMs of any GPU this suite targets (H100/H200: 132)
constexpr int kPhases = 8;

enum Phase : int {
  kPhaseEnter = 0,   // "my inputs are ready / my outputs may be written"
  kPhaseA = 1,       // first data phase done (reduce-scatter half, scatter)
  kPhaseB = 2,       // second data phase done
  kPhaseLeave = 3,   // "I have finished reading your memory"
  kPhaseReadyA = 4,  // two-way handshake before phase A (ablation)
  kPhaseReadyB = 5,  // two-way handshake before phase B (ablation)
  kPhaseData = 6,    // staging: slots filled (a sequence number, not an epoch)
  kPhaseCredit = 7,  // staging: slots drained
};

__host__ __device__ constexpr uint64_t flag_index(int phase, int block, int src) {
  return (static_cast<uint64_t>(phase) * kMaxBlocks + block) * kMaxGpus + src;
}
constexpr uint64_t kFlagWords = static_cast<uint64_t>(kPhases) * kMaxBlocks * kMaxGpus;
constexpr uint64_t kEpochOffset = (kFlagWords * 4 + 255) / 256 * 256;      // bytes
constexpr uint64_t kSyncBytes = kEpochOffset + (kMaxBlocks * 4 + 255) / 256 * 256;

// Handed to kernels by value.
struct SyncTable {
  PeerTable<int> flags;  // flags.at[r]: rank r's flag words (the start of the sync buffer)
  int* epochs;           // this GPU's per-block epoch counters
  Deadline deadline;
};

#ifdef __CUDACC__

// All threads call; returns this launch's epoch for the block. Launched with programmatic
// dependent launch (PkImpl's `_pdl` twins), the kernel may have started while the one ahead
// of it in the stream still ran: griddep_wait first makes everything below see that kernel
// complete (its epoch store, its outputs, its reads of our buffers), exactly as stream order
// does; then this grid lets the next launch start its blocks, which wait the same way. Under
// an ordinary launch both are no-ops.
__device__ __forceinline__ int begin_epoch(const SyncTable& s) {
  ptx::griddep_wait();
  ptx::griddep_launch_dependents();
  __shared__ int epoch;
  if (threadIdx.x == 0) epoch = s.epochs[blockIdx.x] + 1;
  __syncthreads();
  return epoch;
}
// All threads call, after the block's last wait.
__device__ __forceinline__ void end_epoch(const SyncTable& s, int e) {
  if (threadIdx.x == 0) s.epochs[blockIdx.x] = e;
}

__device__ __forceinline__ int* flag_at(const SyncTable& s, int owner, int phase, int src) {
  return s.flags.at[owner] + flag_index(phase, blockIdx.x, src);
}

// Thread t < n signals peer t that this block has reached `phase` of epoch e.
__device__ __forceinline__ void signal_peers(const SyncTable& s, int phase, int value) {
  const int t = static_cast<int>(threadIdx.x), self = s.flags.self;
  if (t < s.flags.size && t != self) ptx::st_release_sys(flag_at(s, t, phase, self), value);
}

// Thread t < n waits until peer t's block has signalled `phase` with at least `value`.
__device__ __forceinline__ bool wait_peers(const SyncTable& s, int phase, int value) {
  const int t = static_cast<int>(threadIdx.x), self = s.flags.self;
  bool ok = true;
  if (t < s.flags.size && t != self) {
    const int* f = flag_at(s, self, phase, t);
    ok = spin_until([&] { return ptx::ld_acquire_sys(f) >= value; }, s.deadline,
                    kWaitBarrier | (static_cast<unsigned long long>(phase) << 8) |
                        (static_cast<unsigned long long>(t) << 16));
  }
  return ok;
}

// Block b of every rank meets block b of every other rank: signal, then wait. Returns
// false (for every thread of the block) when a wait timed out; the caller returns at once.
__device__ __forceinline__ bool exchange(const SyncTable& s, int phase, int e) {
  __syncthreads();
  signal_peers(s, phase, e);
  const bool ok = wait_peers(s, phase, e);
  return __syncthreads_and(ok) != 0;
}

#endif  // __CUDACC__

}  // namespace pk::coll
