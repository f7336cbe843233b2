#pragma once
// Host side of the fused kernels (kernels/fused/): one function pair per kernel, each
// instantiation of the GEMM template in its own translation unit (fused_kernel_*.cu) so the
// four compile in parallel, and the standalone collective of the "ours then ours" baseline.
// Included by .cu files only (FusedParams carries device-side types).
#include <cuda_runtime.h>

#include "kernels/fused/fused_params.cuh"
#include "kernels/fused/standalone_collectives.cuh"
#include "microbench/harness/topology.h"

namespace pk::fused {

// The four fused GEMM kernels. reduce_* serve GEMM+RS and GEMM+AR (FusedParams::reduce_to_all),
// ag_pull serves AG+GEMM inter-SM and the copy-engine schedule (comm_blocks = 0).
enum class KernelKind { reduce_intra, reduce_inter, ag_pull, ag_remote };

// Sets the kernel's shared-memory limit on the current device and checks one block per SM
// for `blocks` resident blocks (gemm::prepare_gemm_kernel). Throws ArgError / SkipPoint.
void prepare_kernel(KernelKind k, int blocks, const GpuInfo& g);
void launch_kernel(KernelKind k, const FusedParams& p, int blocks, cudaStream_t s);

#define PK_FUSED_KERNEL_FUNCS(name)                             \
  void prepare_##name(int blocks, const GpuInfo& g);            \
  void launch_##name(const FusedParams& p, int blocks, cudaStream_t s);
PK_FUSED_KERNEL_FUNCS(reduce_intra)
PK_FUSED_KERNEL_FUNCS(reduce_inter)
PK_FUSED_KERNEL_FUNCS(ag_pull)
PK_FUSED_KERNEL_FUNCS(ag_remote)
#undef PK_FUSED_KERNEL_FUNCS

void launch_standalone(const StandaloneParams& p, int blocks, cudaStream_t s);

}  // namespace pk::fused
