// One instantiation of the fused GEMM kernel: ReduceIntraOps (kernels/fused/gemm_reduce_intra.cuh).
#include "kernels/fused/gemm_reduce_intra.cuh"
#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/fused/fused_kernels.h"

namespace pk::fused {

void prepare_reduce_intra(int blocks, const GpuInfo& g) { gemm::prepare_gemm_kernel<ReduceIntraOps>(blocks, g); }
void launch_reduce_intra(const FusedParams& p, int blocks, cudaStream_t s) { gemm::launch_gemm<ReduceIntraOps>(p, blocks, s); }

}  // namespace pk::fused
