// Fused, intra-SM overlap: every compute block moves its own output (kernels/fused/
// gemm_reduce_intra.cuh) or reads its own remote input (kernels/fused/ag_gemm.cuh).
#include "microbench/fused/schedule.h"

PK_FUSED_DECLARATION(intra_sm,
                     {.summary = "intra-SM overlap: RS/AR reduce-add each output box into its owner(s) with TMA; AG's "
                                 "loader reads remote A tiles with TMA",
                      .comm_bytes = intra_sm_bytes})

#ifdef PK_FUSED_FACTORIES
PK_FUSED_FACTORY(intra_sm) {
  if (p.op == Op::ag_gemm) return make_fused(p, c, {.kernel = KernelKind::ag_remote, .tile_order = "interleaved"});
  // The reduce-adds land in a zeroed output; AR sends every tile to every GPU (L2 order only).
  return make_fused(p, c, {.kernel = KernelKind::reduce_intra, .zero_output = true,
                           .tile_order = p.op == Op::gemm_ar ? "grouped" : "interleaved"});
}
#endif
