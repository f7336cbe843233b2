#pragma once
// GPU tests skip, with the reason, where there is no usable GPU. The same test binary runs
// alone (peer mode single) and under `mpirun -np 2` (peer modes ipc and vmm): tests take
// the modes of this launch as their parameter.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microbench/harness/comm.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"

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

#define PK_REQUIRE_GPU()                                      \
  do {                                                        \
    std::string why_ = no_gpu_reason();                       \
    if (!why_.empty()) GTEST_SKIP() << why_;                  \
  } while (0)

// The communicator of this test process (gpu_main.cpp).
pk::Comm& test_comm();

// single and virtual alone (virtual: $PKBENCH_VIRTUAL_RANKS ranks on GPU0, so one GPU runs
// every multi-rank test; ctest runs the binary once per count); ipc and vmm under an MPI
// launcher.
inline std::vector<pk::PeerMode> test_modes() {
  if (pk::launched_under_mpi()) return {pk::PeerMode::ipc, pk::PeerMode::vmm};
  return {pk::PeerMode::single, pk::PeerMode::virt};
}

// The mode of a test that needs peers but is not parameterised by mode: ipc under MPI, two
// real GPUs where there are, else virtual ranks on the one GPU.
inline pk::PeerMode peer_test_mode() {
  if (pk::launched_under_mpi()) return pk::PeerMode::ipc;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) cudaGetLastError();
  return n >= 2 ? pk::PeerMode::single : pk::PeerMode::virt;
}

// Why a multi-rank test of mode `m` cannot run here ("" when it can): no usable GPU, or fewer
// than 2 GPUs for one process driving them (single).
inline std::string need_peers(pk::PeerMode m) {
  if (std::string why = no_gpu_reason(); !why.empty()) return why;
  int n = 0;
  cudaGetDeviceCount(&n);
  if (m == pk::PeerMode::single && n < 2) return "needs 2 GPUs in one process, found " + std::to_string(n);
  return "";
}

inline std::string mode_param_name(const ::testing::TestParamInfo<pk::PeerMode>& i) {
  return pk::peer_mode_name(i.param);
}

// A GPU test's timing: two short samples, no gap between points, every wait of a kernel bounded
// by `timeout_ms`.
inline pk::TimingOptions quick_test_timing(double timeout_ms) {
  pk::TimingOptions t;
  t.samples = 2;
  t.warmup_ms = 1;
  t.target_sample_ms = 0.2;
  t.gap_ms = 0;
  t.timeout_ms = timeout_ms;
  return t;
}

// Every rank learns whether any rank failed, and with what.
inline std::string agreed(const std::string& mine) { return test_comm().first_error(mine); }
