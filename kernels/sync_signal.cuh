#pragma once
// Signals between SMs and between GPUs: flag ping-pong with several memory-model
// semantics, a grid-wide barrier, a barrier across GPUs and a one-to-all signal. Flags are
// plain ints that only grow (round i signals value i + 1), so stores and adds both work.
#include "kernels/peer_table.cuh"
#include "kernels/signal_semantics.cuh"
#include "kernels/spin_wait.cuh"
#include "kernels/sync_timing.cuh"

namespace pk::sync {

struct PingPongSide {
  int* signal_to;      // the partner's flag (wherever it lives)
  const int* wait_on;  // this side's flag
  bool initiator;
  uint32_t* cycles;    // initiator: round-trip cycles per iteration
  TimingRecord* rec;
  int* sm_out;         // responder writes its %smid here
};

// Initiator: signal, wait for the answer (one round trip per iteration, timed).
// Responder: wait, answer. One thread per side; a grid of 2 blocks runs both sides on one
// GPU (block b takes side b), a grid of 1 block runs side0 (the partner is another launch).
template <class Sem>
static __global__ void flag_pingpong_kernel(PingPongSide side0, PingPongSide side1, int iters, Deadline d) {
  if (threadIdx.x != 0) return;
  const PingPongSide& s = blockIdx.x == 0 ? side0 : side1;
  if (s.initiator) {
    record_start(s.rec);
    for (int i = 0; i < iters; ++i) {
      const uint64_t t0 = ptx::clock64_cycles();
      Sem::signal(s.signal_to, i + 1);
      if (!spin_until([&] { return Sem::poll(s.wait_on) >= i + 1; }, d, kWaitFlag)) return;
      Sem::after_wait();
      s.cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
    }
    record_end(s.rec);
  } else {
    if (s.sm_out) *s.sm_out = static_cast<int>(ptx::smid());
    for (int i = 0; i < iters; ++i) {
      if (!spin_until([&] { return Sem::poll(s.wait_on) >= i + 1; }, d, kWaitFlag)) return;
      Sem::after_wait();
      Sem::signal(s.signal_to, i + 1);
    }
  }
}

// Latency of one acquire-release atomic add that returns its value (a dependent chain).
template <bool System>
static __global__ void atomic_latency_kernel(int* counter, int iters, uint32_t* cycles, TimingRecord* rec) {
  if (threadIdx.x != 0) return;
  record_start(rec);
  int v = 0;
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = ptx::clock64_cycles();
    // The operand depends on the previous result, so each atomic waits for the last one.
    const int add = (v >> 31) + 1;
    v = System ? ptx::atom_add_acq_rel_sys(counter, add) : ptx::atom_add_acq_rel_gpu(counter, add);
    cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
  }
  record_end(rec);
  rec->sink = static_cast<unsigned long long>(v);
}

// Grid-wide barrier, one thread per block: the last block to arrive resets the count and
// publishes the next generation with a release store; the others wait for it with
// acquire loads. Block 0 times each barrier.
static __global__ void grid_barrier_kernel(int* count, int* generation, int iters, uint32_t* cycles, TimingRecord* rec,
                                    Deadline d) {
  if (threadIdx.x != 0) return;
  const int n = static_cast<int>(gridDim.x);
  if (blockIdx.x == 0) record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = ptx::clock64_cycles();
    if (ptx::atom_add_acq_rel_gpu(count, 1) == n - 1) {
      ptx::st_relaxed_gpu(count, 0);
      ptx::st_release_gpu(generation, i + 1);
    } else if (!spin_until([&] { return ptx::ld_acquire_gpu(generation) >= i + 1; }, d, kWaitBarrier)) {
      return;
    }
    if (blockIdx.x == 0) cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
  }
  if (blockIdx.x == 0) record_end(rec);
}

// The same counter on every GPU, as addressed from this GPU (a symmetric table by value).
using GpuCounters = PeerTable<int>;

// Barrier across GPUs, one thread per GPU: add 1 to every GPU's counter (release), then
// wait until this GPU's counter shows every arrival of this round (acquire).
static __global__ void gpu_barrier_kernel(GpuCounters c, int n_gpus, int self, int iters, uint32_t* cycles,
                                   TimingRecord* rec, Deadline d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  record_start(rec);
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = ptx::clock64_cycles();
    for (int g = 0; g < n_gpus; ++g) ptx::red_release_sys_add(c.at[g], 1);
    if (!spin_until([&] { return ptx::ld_acquire_sys(c.at[self]) >= (i + 1) * n_gpus; }, d, kWaitBarrier)) return;
    cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
  }
  record_end(rec);
}

// One GPU signals all others; each answers on the root's counter. The root times the
// round trip until every answer is in.
static __global__ void one_to_all_kernel(GpuCounters flags, int* root_acks, int n_gpus, int self, int root, int iters,
                                  uint32_t* cycles, TimingRecord* rec, Deadline d) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  if (self == root) {
    record_start(rec);
    for (int i = 0; i < iters; ++i) {
      const uint64_t t0 = ptx::clock64_cycles();
      for (int g = 0; g < n_gpus; ++g)
        if (g != root) ptx::red_release_sys_add(flags.at[g], 1);
      if (!spin_until([&] { return ptx::ld_acquire_sys(root_acks) >= (i + 1) * (n_gpus - 1); }, d, kWaitFlag)) return;
      cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
    }
    record_end(rec);
  } else {
    for (int i = 0; i < iters; ++i) {
      if (!spin_until([&] { return ptx::ld_acquire_sys(flags.at[self]) >= i + 1; }, d, kWaitFlag)) return;
      ptx::red_release_sys_add(root_acks, 1);
    }
  }
}

}  // namespace pk::sync
