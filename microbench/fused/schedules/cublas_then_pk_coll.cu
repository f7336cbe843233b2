// Baseline: cuBLASLt's GEMM then this suite's standalone collective, one stream. Beside
// cublas_nccl and pk_then_coll it separates the two swaps: which GEMM, and which collective.
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(cublas_then_pk_coll, cublas, pk,
                     {.kind = Kind::baseline,
                      .summary = "cuBLASLt then this suite's standalone collective, one stream"})
