#pragma once
// Driver-API entry points reached through cudaGetDriverEntryPointByVersion, so nothing links
// libcuda and every binary still starts where there is no driver. One table, loaded on
// first use; a missing entry point is a CudaError naming it.
#include <cuda.h>

namespace pk::driver {

// Each entry point named once, with the CUDA version whose signature it has: the table's
// member (typed as cuda.h declares it) and its load.
#define PK_DRIVER_API(X)                                                                                   \
  X(cuGetErrorString, 12000) X(cuDeviceGet, 12000) X(cuMemGetAllocationGranularity, 12000)                \
  X(cuMemCreate, 12000) X(cuMemRelease, 12000) X(cuMemExportToShareableHandle, 12000)                    \
  X(cuMemImportFromShareableHandle, 12000) X(cuMemAddressReserve, 12000) X(cuMemAddressFree, 12000)      \
  X(cuMemMap, 12000) X(cuMemUnmap, 12000) X(cuMemSetAccess, 12000) X(cuTensorMapEncodeTiled, 12000)
// Green contexts (CUDA 12.5+ drivers: cuGreenCtxStreamCreate): loaded apart from api() so that
// an older driver still runs every other peer mode.
#define PK_DRIVER_GREEN_API(X)                                                                             \
  X(cuDeviceGetDevResource, 12050) X(cuDevSmResourceSplitByCount, 12050)                                 \
  X(cuDevResourceGenerateDesc, 12050) X(cuGreenCtxCreate, 12050) X(cuGreenCtxDestroy, 12050)             \
  X(cuCtxFromGreenCtx, 12050) X(cuGreenCtxStreamCreate, 12050) X(cuCtxSetCurrent, 12000)                 \
  X(cuCtxGetCurrent, 12000)
#define PK_DRIVER_SLOT(name, version) decltype(&::name) name = nullptr;

struct Api {
  PK_DRIVER_API(PK_DRIVER_SLOT)
};
const Api& api();

struct GreenApi {
  PK_DRIVER_GREEN_API(PK_DRIVER_SLOT)
};
const GreenApi& green_api();

// Throws CudaError "<call>: <driver message>" unless r is CUDA_SUCCESS.
void check(CUresult r, const char* call);

}  // namespace pk::driver

#define PK_CU_CHECK(expr) ::pk::driver::check((expr), #expr)
