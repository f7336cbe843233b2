// Baseline: cuBLASLt then NCCL, one stream, nothing overlapped (the paper's baseline).
#include "microbench/fused/schedule.h"

PK_FUSED_IN_SEQUENCE(cublas_nccl, cublas, nccl,
                     {.kind = Kind::baseline,
                      .summary = "cuBLASLt then NCCL on one stream: the paper's non-overlapped baseline",
                      .needs_nccl = true,
                      .peer_access = false})
