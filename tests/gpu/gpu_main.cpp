// GPU tests' main: MPI when started by mpirun (every rank runs every test; the exit code is
// the worst rank's), one process otherwise.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "tests/gpu/gpu_test_util.h"
#include "microbench/harness/cuda_check.h"

namespace {
std::unique_ptr<pk::Comm> g_comm;
}

pk::Comm& test_comm() { return *g_comm; }

int main(int argc, char** argv) {
  pk::init_cuda_environment();
  // Virtual ranks: each rank's streams on hardware queues of their own (see StudyMain::begin).
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  g_comm = pk::make_comm(&argc, &argv);
  int rc = RUN_ALL_TESTS();
  rc = static_cast<int>(g_comm->max(rc));
  g_comm.reset();
  return rc;
}
