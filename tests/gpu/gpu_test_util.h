#pragma once
// GPU tests skip, with the reason, where there is no usable GPU. The same test binary runs
// alone (peer mode single) and under `mpirun -np 2` (peer modes ipc and vmm): tests take
// the modes of this launch as their parameter.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microbench/gemm/autotune_cache.h"
#include "microbench/harness/comm.h"
#include "microbench/harness/gpu_test_support.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"

using pk::need_peers;
using pk::no_gpu_reason;
using pk::quick_test_timing;
using pk::test_modes;

#define PK_REQUIRE_GPU()                                      \
  do {                                                        \
    std::string why_ = no_gpu_reason();                       \
    if (!why_.empty()) GTEST_SKIP() << why_;                  \
  } while (0)

// The cuBLASLt autotuning effort of a GPU test: the least under a sanitizer (one candidate timed
// once: racecheck's host memory grows with every cuBLASLt launch it watches), else the study's.
inline pk::gemm::AutotuneEffort test_autotune_effort() {
  return pk::slowed_by_a_tool() ? pk::gemm::AutotuneEffort{1, 1, 1} : pk::gemm::AutotuneEffort{};
}

// The communicator of this test process (gpu_main.cpp).
pk::Comm& test_comm();

// The mode of a test that needs peers but is not parameterised by mode: ipc under MPI, two
// real GPUs where there are, else virtual ranks on the one GPU.
inline pk::PeerMode peer_test_mode() {
  if (pk::launched_under_mpi()) return pk::PeerMode::ipc;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) cudaGetLastError();
  return n >= 2 ? pk::PeerMode::single : pk::PeerMode::virt;
}

inline std::string mode_param_name(const ::testing::TestParamInfo<pk::PeerMode>& i) {
  return pk::peer_mode_name(i.param);
}

// Every rank learns whether any rank failed, and with what.
inline std::string agreed(const std::string& mine) { return test_comm().first_error(mine); }
