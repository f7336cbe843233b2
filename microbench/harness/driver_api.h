#pragma once
// Driver-API entry points reached through cudaGetDriverEntryPointByVersion, so nothing links
// libcuda and every binary still starts where there is no driver. One table, loaded on
// first use; a missing entry point is a CudaError naming it.
#include <cuda.h>

namespace pk::driver {

struct Api {
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuMemGetAllocationGranularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags);
  CUresult (*cuMemCreate)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long);
  CUresult (*cuMemRelease)(CUmemGenericAllocationHandle);
  CUresult (*cuMemExportToShareableHandle)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                                           unsigned long long);
  CUresult (*cuMemImportFromShareableHandle)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType);
  CUresult (*cuMemAddressReserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*cuMemAddressFree)(CUdeviceptr, size_t);
  CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*cuMemUnmap)(CUdeviceptr, size_t);
  CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                     const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
};

const Api& api();

// Green contexts (CUDA 12.5+ drivers: cuGreenCtxStreamCreate): loaded apart from api() so that an older driver
// still runs every other peer mode.
struct GreenApi {
  CUresult (*cuDeviceGetDevResource)(CUdevice, CUdevResource*, CUdevResourceType);
  CUresult (*cuDevSmResourceSplitByCount)(CUdevResource*, unsigned int*, const CUdevResource*, CUdevResource*,
                                          unsigned int, unsigned int);
  CUresult (*cuDevResourceGenerateDesc)(CUdevResourceDesc*, CUdevResource*, unsigned int);
  CUresult (*cuGreenCtxCreate)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned int);
  CUresult (*cuGreenCtxDestroy)(CUgreenCtx);
  CUresult (*cuCtxFromGreenCtx)(CUcontext*, CUgreenCtx);
  CUresult (*cuGreenCtxStreamCreate)(CUstream*, CUgreenCtx, unsigned int, int);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
};

const GreenApi& green_api();

// Throws CudaError "<call>: <driver message>" unless r is CUDA_SUCCESS.
void check(CUresult r, const char* call);

}  // namespace pk::driver

#define PK_CU_CHECK(expr) ::pk::driver::check((expr), #expr)
