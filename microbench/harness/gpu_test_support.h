#pragma once
// What the GPU tests share, gtest aside (tests/gpu/gpu_test_util.h adds the gtest pieces; a
// study's own GPU tests under microbench/<study>/ include this): why a test cannot run here,
// the peer modes of this launch and a test's timing options.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "microbench/harness/comm.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"

namespace pk {

inline std::string no_gpu_reason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA GPU: cudaGetDeviceCount: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "no CUDA GPU visible";
  return "";
}

// single and virtual alone (virtual: $PKBENCH_VIRTUAL_RANKS ranks on GPU0, so one GPU runs
// every multi-rank test; ctest runs the binary once per count); ipc and vmm under an MPI
// launcher.
inline std::vector<PeerMode> test_modes() {
  if (launched_under_mpi()) return {PeerMode::ipc, PeerMode::vmm};
  return {PeerMode::single, PeerMode::virt};
}

// Why a multi-rank test of mode `m` cannot run here ("" when it can): no usable GPU, or fewer
// than 2 GPUs for one process driving them (single).
inline std::string need_peers(PeerMode m) {
  if (std::string why = no_gpu_reason(); !why.empty()) return why;
  int n = 0;
  cudaGetDeviceCount(&n);
  if (m == PeerMode::single && n < 2) return "needs 2 GPUs in one process, found " + std::to_string(n);
  return "";
}

// A GPU test's timing: two short samples, no gap between points, every wait of a kernel bounded
// by `timeout_ms`.
inline TimingOptions quick_test_timing(double timeout_ms) {
  TimingOptions t;
  t.samples = 2;
  t.warmup_ms = 1;
  t.target_sample_ms = 0.2;
  t.gap_ms = 0;
  t.timeout_ms = timeout_ms;
  return t;
}

// A test that waits for a device timeout bounds the wait only to catch a hang, never as a
// latency: a busy 4-GPU node took 1.46 s for a 100 ms deadline (a 1 s bound failed there).
// Scaled with the deadlines themselves ($PKBENCH_DEADLINE_SCALE, device_runtime.h).
inline double timeout_hang_catcher_ms() { return 10000 * deadline_scale(); }

// The deadline of a wait a test makes time out on purpose (its peers never launch): divided by
// $PKBENCH_DEADLINE_SCALE so that, after StatusBoard stretches it, it expires as soon as without
// a tool. Stretching it would only lengthen the test (a collective per implementation, each a
// 100x longer wait under racecheck). Only for a kernel whose every wait is meant to expire.
inline double expected_timeout_ms(double ms) { return ms / deadline_scale(); }

// Under a tool that slows kernels many times over (scripts/sanitize.sh sets
// $PKBENCH_DEADLINE_SCALE above 1), a test's largest problem shrinks to the smallest that still
// shows what it is there for: the tool checks the same code paths in minutes, not hours.
inline bool slowed_by_a_tool() { return deadline_scale() > 1; }

}  // namespace pk
