#pragma once
// NCCL over a PeerGroup, set up once for every study that uses it (the collectives' and the
// fused kernels' baselines, the primitives' device-API style): errors as exceptions naming
// the call and NCCL's last message, and one communicator per GPU this process drives.
// Built only where NCCL is found (pkbench_nccl).
#include <nccl.h>

#include <map>

#include "microbench/harness/peer_group.h"

namespace pk {

[[noreturn]] void throw_nccl_error(ncclResult_t r, const char* expr);

// One communicator for every GPU this process drives, over every GPU of the group (NCCL
// rank = group GPU number): a unique id from rank 0 broadcast over pk::Comm, then
// ncclCommInitRankConfig on each local GPU, grouped when one process drives several (which
// is what ncclCommInitAll does). Collective; every rank agrees on a failure. cfg: nullptr
// for NCCL's defaults. Its time is the point's `communicator` part (point_cost.h).
std::map<int, ncclComm_t> make_nccl_comms(PeerGroup& g, ncclConfig_t* cfg = nullptr);

}  // namespace pk

#define PK_NCCL_CHECK(expr)                                                \
  do {                                                                     \
    const ncclResult_t pk_nccl_r_ = (expr);                                \
    if (pk_nccl_r_ != ncclSuccess) ::pk::throw_nccl_error(pk_nccl_r_, #expr); \
  } while (0)
