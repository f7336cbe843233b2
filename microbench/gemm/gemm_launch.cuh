#pragma once
// Host side of kernels/gemm/gemm_kernel.cuh for any Ops policy: tensor maps of a local
// GEMM, the one-block-per-SM residency check, and the (cluster) launch. A fused study
// includes this, derives its Ops and Params, and calls the same three functions.
#include <cuda_runtime.h>

#include <string>

#include "kernels/gemm/gemm_kernel.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tensor_map_gemm.h"
#include "microbench/harness/topology.h"

namespace pk::gemm {

// A, B, C maps for configuration Cfg over row-major bf16 A[m,k], B[n,k], C[m,n] (local or
// peer pointers alike); the remaining fields as given.
template <class Cfg>
GemmParams make_gemm_params(const void* a, const void* b, void* c, int m, int n, int k, int compute_blocks,
                            int group_m, int* smid_out, const Deadline& deadline) {
  GemmParams p{};
  p.tmap_a = make_tensor_map_2d_bf16_sw128(a, uint64_t(k), uint64_t(m), uint64_t(k) * 2, Cfg::BK, Cfg::BM);
  p.tmap_b = make_tensor_map_2d_bf16_sw128(b, uint64_t(k), uint64_t(n), uint64_t(k) * 2, Cfg::BK, Cfg::B_LOAD_ROWS);
  p.tmap_c = make_tensor_map_2d_bf16_sw128(c, uint64_t(n), uint64_t(m), uint64_t(n) * 2, Cfg::EPI_COLS, Cfg::WG_M);
  p.m = m;
  p.n = n;
  p.k = k;
  p.compute_blocks = compute_blocks;
  p.group_m = group_m > 0 ? group_m : Cfg::DEFAULT_GROUP_M;
  p.smid_out = smid_out;
  p.deadline = deadline;
  return p;
}

template <class Ops>
cudaLaunchConfig_t gemm_launch_config(int blocks, cudaStream_t s, cudaLaunchAttribute* attr) {
  using Cfg = typename Ops::Config;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(Cfg::THREADS);
  cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
  cfg.stream = s;
  cfg.numAttrs = 0;
  cfg.attrs = attr;
  if constexpr (Cfg::CLUSTER_M > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = Cfg::CLUSTER_M;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.numAttrs = 1;
  }
  return cfg;
}

// Sets the dynamic shared-memory limit of the kernel on the current device and checks that
// `blocks` blocks (compute + communicator) run at once, one per SM: the shared memory each
// block takes leaves no room for a second, and the GPU must hold the whole (clustered)
// grid, or a persistent grid would run in waves and the blocks would share SMs.
// Throws SkipPoint when this GPU cannot, ArgError for more blocks than SMs.
template <class Ops>
void prepare_gemm_kernel(int blocks, const GpuInfo& g) {
  using Cfg = typename Ops::Config;
  auto* kernel = gemm_kernel<Ops>;
  if (blocks > g.sm_count)
    throw ArgError(std::to_string(blocks) + " blocks (one per SM) but the GPU has " + std::to_string(g.sm_count) + " SMs");
  PK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::SMEM_BYTES)));
  int per_sm = 0;
  PK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Cfg::THREADS, Cfg::SMEM_BYTES));
  if (per_sm != 1)
    throw SkipPoint("GEMM kernel: " + std::to_string(per_sm) + " blocks fit per SM (want exactly 1; " +
                    std::to_string(Cfg::SMEM_BYTES) + " B shared memory, " + std::to_string(Cfg::THREADS) + " threads)");
  if constexpr (Cfg::CLUSTER_M > 1) {
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = gemm_launch_config<Ops>(blocks, nullptr, attr);
    int clusters = 0;
    PK_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
    if (clusters * Cfg::CLUSTER_M < blocks)
      throw SkipPoint("only " + std::to_string(clusters) + " clusters of " + std::to_string(Cfg::CLUSTER_M) +
                      " fit at once (" + std::to_string(clusters * Cfg::CLUSTER_M) + " blocks), asked for " +
                      std::to_string(blocks) + " blocks");
  }
}

template <class Ops>
void launch_gemm(const typename Ops::Params& p, int blocks, cudaStream_t s) {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = gemm_launch_config<Ops>(blocks, s, attr);
  PK_CUDA_CHECK(cudaLaunchKernelEx(&cfg, gemm_kernel<Ops>, p));
}

}  // namespace pk::gemm
