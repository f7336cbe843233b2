#include "driver_api.h"

#include <cuda_runtime.h>

#include <string>

#include "cuda_check.h"

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

const Api& api() {
  static const Api a = [] {
    Api x{};
    load(&x.cuGetErrorString, "cuGetErrorString", 12000);
    load(&x.cuDeviceGet, "cuDeviceGet", 12000);
    load(&x.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", 12000);
    load(&x.cuMemCreate, "cuMemCreate", 12000);
    load(&x.cuMemRelease, "cuMemRelease", 12000);
    load(&x.cuMemExportToShareableHandle, "cuMemExportToShareableHandle", 12000);
    load(&x.cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle", 12000);
    load(&x.cuMemAddressReserve, "cuMemAddressReserve", 12000);
    load(&x.cuMemAddressFree, "cuMemAddressFree", 12000);
    load(&x.cuMemMap, "cuMemMap", 12000);
    load(&x.cuMemUnmap, "cuMemUnmap", 12000);
    load(&x.cuMemSetAccess, "cuMemSetAccess", 12000);
    load(&x.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", 12000);
    return x;
  }();
  return a;
}

const GreenApi& green_api() {
  static const GreenApi a = [] {
    GreenApi x{};
    load(&x.cuDeviceGetDevResource, "cuDeviceGetDevResource", 12050);
    load(&x.cuDevSmResourceSplitByCount, "cuDevSmResourceSplitByCount", 12050);
    load(&x.cuDevResourceGenerateDesc, "cuDevResourceGenerateDesc", 12050);
    load(&x.cuGreenCtxCreate, "cuGreenCtxCreate", 12050);
    load(&x.cuGreenCtxDestroy, "cuGreenCtxDestroy", 12050);
    load(&x.cuCtxFromGreenCtx, "cuCtxFromGreenCtx", 12050);
    load(&x.cuGreenCtxStreamCreate, "cuGreenCtxStreamCreate", 12050);
    load(&x.cuCtxSetCurrent, "cuCtxSetCurrent", 12000);
    load(&x.cuCtxGetCurrent, "cuCtxGetCurrent", 12000);
    return x;
  }();
  return a;
}

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  if (api().cuGetErrorString(r, &msg) != CUDA_SUCCESS || !msg) msg = "unknown driver error";
  throw CudaError(std::string(call) + ": " + msg + " (CUresult " + std::to_string(static_cast<int>(r)) + ")");
}

}  // namespace pk::driver
