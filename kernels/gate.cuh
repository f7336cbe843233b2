#pragma once
// Non-template kernels in these headers are `static`: each translation unit that includes
// a header gets its own copy instead of a duplicate symbol.
// The start gate: one thread per armed stream spins on its GPU's word of a symmetric
// buffer, so a stream's queued work (possibly hundreds of copies) starts only when every
// process has finished enqueuing, and all GPUs of a step start together. One opener kernel
// writes every reachable GPU's word, so the GPUs open within one NVLink store of each other.
#include "kernels/peer_table.cuh"
#include "kernels/spin_wait.cuh"

namespace pk {

static __global__ void gate_kernel(const int* word, int open_value, Deadline d) {
  wait_flag_geq_sys(word, open_value, d, kWaitGate);
}

// Writes `value` into the gate word of every GPU whose bit is set in `mask`. Release at
// system scope: nothing precedes it that the waiters read, but the store must leave this
// GPU promptly and not be merged with a later one.
static __global__ void gate_open_kernel(PeerTable<int> words, unsigned mask, int value) {
  const int r = static_cast<int>(threadIdx.x);
  if (r < kMaxGpus && (mask >> r & 1u) && words.at[r]) ptx::st_release_sys(words.at[r], value);
}

}  // namespace pk
