#include "microbench/harness/driver_api.h"

#include <cuda_runtime.h>

#include <string>

#include "microbench/harness/cuda_check.h"

namespace pk::driver {
namespace {

template <class Fn>
void load(Fn* slot, const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
    cudaGetLastError();
    throw CudaError(std::string("driver entry point ") + name + " is not available (" + cudaGetErrorString(e) + ")");
  }
  *slot = reinterpret_cast<Fn>(fn);
}

}  // namespace

#define PK_DRIVER_LOAD(name, version) load(&x.name, #name, version);

const Api& api() {
  static const Api a = [] { Api x{}; PK_DRIVER_API(PK_DRIVER_LOAD) return x; }();
  return a;
}

const GreenApi& green_api() {
  static const GreenApi a = [] { GreenApi x{}; PK_DRIVER_GREEN_API(PK_DRIVER_LOAD) return x; }();
  return a;
}

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  if (api().cuGetErrorString(r, &msg) != CUDA_SUCCESS || !msg) msg = "unknown driver error";
  throw CudaError(std::string(call) + ": " + msg + " (CUresult " + std::to_string(static_cast<int>(r)) + ")");
}

}  // namespace pk::driver
