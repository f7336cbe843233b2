// Fused, inter-SM overlap: comm_sms communicator blocks beside the GEMM on the other SMs
// (kernels/fused/gemm_reduce_inter.cuh, kernels/fused/ag_gemm.cuh).
#include "microbench/fused/schedule.h"

PK_FUSED_DECLARATION(inter_sm,
                     {.summary = "inter-SM overlap: comm_sms communicator blocks (RS/AR: pull flagged partial tiles and "
                                 "reduce; AG: TMA-copy the next shard) beside the GEMM on the rest",
                      // untuned: the presets' single setting (smoke, table3), what a program without a table launches.
                      .knobs = {{&knobs::comm_sms, "4,8,16,24,32", 16}}})

#ifdef PK_FUSED_FACTORIES
PK_FUSED_FACTORY(inter_sm) {
  const bool ag = p.op == Op::ag_gemm;
  return make_fused(p, c, {.kernel = ag ? KernelKind::ag_pull : KernelKind::reduce_inter,
                           .flags = flag_words(p.op, p.shape),
                           .tile_order = ag ? "shard_arrival" : "interleaved"});
}
#endif
