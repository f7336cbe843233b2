// Baseline: this suite's GEMM then its standalone collective, one stream.
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(pk_then_coll, pk, pk,
                     {.kind = Kind::baseline,
                      .summary = "this suite's GEMM then its standalone collective, one stream"})
