#include "tensor_map_gemm.h"

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <string>

#include "cuda_check.h"

namespace pk {

CUtensorMap make_tensor_map_2d_bf16_sw128(const void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                          uint32_t box_cols, uint32_t box_rows) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    PK_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn) throw CudaError("cuTensorMapEncodeTiled not available from the driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  if (box_cols * 2 > 128) throw CudaError("128-B swizzle needs a box at most 64 bf16 wide");
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {row_pitch_bytes};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                      elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError("cuTensorMapEncodeTiled (bf16, 128-B swizzle) failed with CUresult " + std::to_string(int(r)) +
                    " (box " + std::to_string(box_cols) + "x" + std::to_string(box_rows) + ", matrix " +
                    std::to_string(cols) + "x" + std::to_string(rows) + ", pitch " + std::to_string(row_pitch_bytes) +
                    " B)");
  return map;
}

}  // namespace pk
