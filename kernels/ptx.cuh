#pragma once
// Every PTX wrapper of the suite, one instruction each, in kernels/ptx/ by topic. Where
// CCCL's cuda::ptx (CUDA 13) has the instruction with the scope and semantics needed, the
// wrapper is its call (fences.cuh, the bulk-group waits); the others are hand-written asm
// volatile with a "memory" clobber, so the compiler neither caches values across them nor
// moves memory accesses over them, and each file says why cuda::ptx does not serve.
// Not here: the multimem (NVSwitch multicast) loads and stores, which stay beside the one
// guarded kernel that may issue them (kernels/collectives/multimem_allreduce.cuh).
#include "kernels/ptx/barriers.cuh"
#include "kernels/ptx/bulk_copy.cuh"
#include "kernels/ptx/cluster.cuh"
#include "kernels/ptx/fences.cuh"
#include "kernels/ptx/global.cuh"
#include "kernels/ptx/mbarrier.cuh"
#include "kernels/ptx/registers.cuh"
#include "kernels/ptx/shared.cuh"
#include "kernels/ptx/wgmma.cuh"
