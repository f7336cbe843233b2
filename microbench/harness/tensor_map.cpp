#include "microbench/harness/tensor_map.h"

#include <string>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/driver_api.h"
#include "microbench/harness/tensor_map_gemm.h"

namespace pk {
namespace {

// One 2-D tiled map over [base, base + rows * pitch): dim0 = cols (contiguous), dim1 = rows.
CUtensorMap encode_2d(const void* base, CUtensorMapDataType type, uint64_t cols, uint64_t rows, uint64_t pitch,
                      uint32_t box_cols, uint32_t box_rows, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                      const char* what) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {pitch};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = driver::api().cuTensorMapEncodeTiled(&map, type, 2, const_cast<void*>(base), dims, strides, box,
                                                          elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2,
                                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError(std::string("cuTensorMapEncodeTiled (") + what + ") failed with CUresult " +
                    std::to_string(int(r)) + " (box " + std::to_string(box_cols) + "x" + std::to_string(box_rows) +
                    ", matrix " + std::to_string(cols) + "x" + std::to_string(rows) + ", pitch " +
                    std::to_string(pitch) + " B)");
  return map;
}

}  // namespace

CUtensorMap make_tensor_map_2d_u16(void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                   uint32_t box_cols, uint32_t box_rows) {
  return encode_2d(base, CU_TENSOR_MAP_DATA_TYPE_UINT16, cols, rows, row_pitch_bytes, box_cols, box_rows,
                   CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, "u16");
}

CUtensorMap make_tensor_map_2d_bf16(const void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                    uint32_t box_cols, uint32_t box_rows) {
  return encode_2d(base, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, cols, rows, row_pitch_bytes, box_cols, box_rows,
                   CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "bf16, no swizzle");
}

CUtensorMap make_tensor_map_2d_bf16_sw128(const void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                          uint32_t box_cols, uint32_t box_rows) {
  if (box_cols * 2 > 128) throw CudaError("128-B swizzle needs a box at most 64 bf16 wide");
  return encode_2d(base, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, cols, rows, row_pitch_bytes, box_cols, box_rows,
                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "bf16, 128-B swizzle");
}

}  // namespace pk
