// Component: cuBLASLt's GEMM of the operator, nothing communicated.
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(gemm_cublas, cublas, none,
                     {.kind = Kind::component,
                      .summary = "cuBLASLt alone on every SM",
                      .computes = Computes::gemm,
                      .peer_access = false})
