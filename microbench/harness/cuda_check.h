#pragma once
// Errors from the CUDA runtime become exceptions that carry the call site, so a study can
// turn one failed point into an error row instead of aborting the whole run.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace pk {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A precondition the user broke (bad flag, impossible configuration): exits with status 2.
struct ArgError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A point could not be measured on this machine (one GPU, no peer access): recorded, not fatal.
struct SkipPoint : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

// Call first in main(), before any CUDA call. Forces eager module loading: with lazy
// loading, the first launch of a kernel may wait for the device to go idle, and a spinning
// kernel already on it (the start gate, a ping-pong partner) then never lets it.
void init_cuda_environment();

}  // namespace pk

#define PK_CUDA_CHECK(expr)                                                  \
  do {                                                                       \
    cudaError_t pk_err_ = (expr);                                            \
    if (pk_err_ != cudaSuccess) ::pk::throw_cuda_error(pk_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After a launch: catches bad configurations at once (the kernel's own faults surface at sync).
#define PK_CUDA_CHECK_LAUNCH() PK_CUDA_CHECK(cudaGetLastError())
