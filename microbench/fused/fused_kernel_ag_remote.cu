// One instantiation of the fused GEMM kernel: AgRemoteOps (kernels/fused/ag_gemm.cuh).
#include "kernels/fused/ag_gemm.cuh"
#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/fused/fused_kernels.h"

namespace pk::fused {

void prepare_ag_remote(int blocks, const GpuInfo& g) { gemm::prepare_gemm_kernel<AgRemoteOps>(blocks, g); }
void launch_ag_remote(const FusedParams& p, int blocks, cudaStream_t s) { gemm::launch_gemm<AgRemoteOps>(p, blocks, s); }

}  // namespace pk::fused
