// Component: this suite's standalone collective of the operator on cuBLASLt's partial results, no GEMM.
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(coll_pk, none, pk,
                     {.kind = Kind::component,
                      .summary = "this suite's standalone collective alone (pull, fp32 sums)",
                      .computes = Computes::collective})
