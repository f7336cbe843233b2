#pragma once
// Tensor maps for the GEMM kernels: 2-D bf16 matrices read and written through boxes with
// the 128-B swizzle that wgmma's shared-memory descriptors expect. Encoded through
// cudaGetDriverEntryPointByVersion like tensor_map.cpp, so nothing links libcuda.
#include <cuda.h>

#include <cstdint>

namespace pk {

// Row-major bf16 matrix [base, base + rows * row_pitch_bytes): dim0 = cols (contiguous),
// dim1 = rows. Boxes of box_cols x box_rows with box_cols * 2 <= 128 (one swizzle row);
// loads ask L2 for 256-B sectors. Throws CudaError with the shapes when encoding fails.
CUtensorMap make_tensor_map_2d_bf16_sw128(const void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                          uint32_t box_cols, uint32_t box_rows);

}  // namespace pk
