// Component: this suite's GEMM of the operator, nothing communicated.
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(gemm_pk, pk, none,
                     {.kind = Kind::component,
                      .summary = "this suite's GEMM alone on every SM (Table 3's GEMM column; the comm ratio's base)",
                      .computes = Computes::gemm,
                      .peer_access = false})
