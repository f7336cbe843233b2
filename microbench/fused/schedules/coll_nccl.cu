// Component: NCCL's collective of the operator on cuBLASLt's partial results, no GEMM.
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(coll_nccl, none, nccl,
                     {.kind = Kind::component,
                      .summary = "NCCL's collective alone (reduce-scatter, all-gather, all-reduce)",
                      .needs_nccl = true,
                      .computes = Computes::collective,
                      .peer_access = false})
