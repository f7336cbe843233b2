// The grouped expert GEMM's launcher: the study's one instantiation of this suite's GEMM
// kernel (kernels/ep/expert_gemm.cuh; CI compiles on 2 cores), which runs both alone and with
// the dispatch's communicator blocks.
#include "kernels/ep/expert_gemm.cuh"
#include "microbench/ep/ep_steps.h"
#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tensor_map_gemm.h"

namespace pk::ep {

ExpertGemm::ExpertGemm(Context& c, int compute, int comm, HtDispatch* overlap) : ctx_(c), compute_(compute), comm_(comm) {
  using Cfg = ExpertGemmCfg;
  const EpShape& sh = c.shape;
  check_gemm_shape(sh);
  if (compute < 1 || compute + comm > c.sm_budget())
    throw SkipPoint(std::to_string(compute) + " compute + " + std::to_string(comm) + " communication blocks on a rank of " +
                    std::to_string(c.sm_budget()) + " SMs (one block per SM)");
  if ((comm > 0) != (overlap != nullptr)) throw std::logic_error("communicator blocks need the dispatch they run");
  const int El = c.local_experts();
  const int64_t rows = c.rows_cap();
  for (int gpu : c.local_gpus()) {
    c.group.set_device(gpu);
    GpuInfo g = c.group.topology().gpus.at(gpu);
    g.sm_count = c.sm_budget();
    gemm::prepare_gemm_kernel<ExpertGemmOps>(compute + comm, g);
    RankBuffers& b = c.at(gpu);
    ExpertGemmParams p{};
    static_cast<gemm::GemmParams&>(p) = gemm::make_gemm_params<Cfg>(b.recv, b.weights, b.c, static_cast<int>(rows),
                                                                     El * sh.h_expert, sh.hidden, compute, 0, nullptr,
                                                                     c.deadline(gpu));
    // C is H_expert wide (make_gemm_params took N as the stacked weights' rows).
    p.tmap_c = make_tensor_map_2d_bf16_sw128(b.c, uint64_t(sh.h_expert), uint64_t(rows), uint64_t(sh.h_expert) * 2,
                                             Cfg::EPI_COLS, Cfg::WG_M);
    p.layout = c.layout(gpu);
    p.local_experts = El;
    p.tiles_n = sh.h_expert / Cfg::BN;
    p.h_expert = sh.h_expert;
    if (overlap) {
      p.dispatch = overlap->data_params(gpu);
      p.tile_flags = b.tile_flags;
    }
    params_[gpu] = p;
  }
}

void ExpertGemm::run(int gpu, cudaStream_t s) { gemm::launch_gemm<ExpertGemmOps>(params_.at(gpu), compute_ + comm_, s); }

}  // namespace pk::ep
