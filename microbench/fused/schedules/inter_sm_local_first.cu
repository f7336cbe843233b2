// Fused, inter-SM overlap with the other rotation of the interleaved tile order: each round
// of `world` tiles starts at the local shard (order_first 0), whose partial no link carries,
// where inter_sm starts at the next GPU's so that every link has a tile from the first one
// on. The same kernel (ReduceInterOps) and split; a measured answer to whether that choice
// matters, compared with inter_sm in the sweeps' inter-SM class.
#include "microbench/fused/schedule.h"

PK_FUSED_DECLARATION(inter_sm_local_first,
                     {.summary = "inter_sm's reduction with each round of the interleaved order starting at the local "
                                 "shard instead of the next GPU's",
                      .ops = {Op::gemm_rs, Op::gemm_ar},
                      .knobs = {{&knobs::comm_sms, "8,16,32", 16}},
                      .overlap = "inter_sm"})

#ifdef PK_FUSED_FACTORIES
PK_FUSED_FACTORY(inter_sm_local_first) {
  return make_fused(p, c, {.kernel = KernelKind::reduce_inter, .flags = flag_words(p.op, p.shape),
                           .tile_order = "interleaved_local_first", .order_first = 0});
}
#endif
