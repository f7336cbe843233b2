// One instantiation of the fused GEMM kernel: ReduceInterOps (kernels/fused/gemm_reduce_inter.cuh).
#include "kernels/fused/gemm_reduce_inter.cuh"
#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/fused/fused_kernels.h"

namespace pk::fused {

void prepare_reduce_inter(int blocks, const GpuInfo& g) { gemm::prepare_gemm_kernel<ReduceInterOps>(blocks, g); }
void launch_reduce_inter(const FusedParams& p, int blocks, cudaStream_t s) { gemm::launch_gemm<ReduceInterOps>(p, blocks, s); }

}  // namespace pk::fused
