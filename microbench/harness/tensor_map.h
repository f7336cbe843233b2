#pragma once
// CUtensorMap encoding through cudaGetDriverEntryPointByVersion, so nothing links libcuda
// and binaries start on machines without a driver.
#include <cuda.h>

#include <cstdint>

namespace pk {

// 2-D map of 16-bit elements over [base, base + rows * row_pitch_bytes): dim0 = cols
// (contiguous), dim1 = rows; boxes of box_cols x box_rows, no swizzle, no interleave.
CUtensorMap make_tensor_map_2d_u16(void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                   uint32_t box_cols, uint32_t box_rows);

// The same for bf16, boxes of up to 256 x 256 elements landing row-major (no swizzle) in
// shared memory; loads ask L2 for 256-B sectors. For bulk movement of whole row blocks
// (one TMA operation per box instead of one per row).
CUtensorMap make_tensor_map_2d_bf16(const void* base, uint64_t cols, uint64_t rows, uint64_t row_pitch_bytes,
                                    uint32_t box_cols, uint32_t box_rows);

}  // namespace pk
