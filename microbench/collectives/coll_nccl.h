#pragma once
// NCCL baselines, measured the way nccl-tests measures them: one communicator per GPU and
// configuration (coll_problem.h: NcclConfig)
// (harness/nccl_comms.h: a unique id broadcast over pk::Comm, grouped initialisation when
// one process drives every GPU, as ncclCommInitAll does), unregistered ncclMemAlloc buffers ("nccl", as
// nccl-tests allocates them when built against NCCL >= 2.19) and ncclMemAlloc
// buffers registered as symmetric windows ("nccl_sym", nccl-tests -R 2:
// ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC)). The tensor-dimension cases add
// the reshape copies a user of NCCL needs (coll_problem.h: nccl_reshape_plan).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "microbench/collectives/coll_problem.h"

namespace pk::coll {

class Context;
struct Problem;

// The buffers a library baseline needs for the largest of its points (the study sizes one
// per library: NCCL's here, NVSHMEM's symmetric heap from user_in / user_out).
struct NcclSizes {
  uint64_t user_in = 0, user_out = 0;  // bytes: the largest input / output of any point
  uint64_t send = 0, recv = 0;         // bytes: the largest buffers NCCL itself reads / writes
  uint64_t reshape_send = 0, reshape_recv = 0;  // bytes: NCCL's buffers behind a reshape copy
  // Grows every size to hold `p` (nccl_reshape_plan for the tensor-dimension layouts).
  void add(const Problem& p);
};

class NcclState;
struct NcclStateDeleter {
  void operator()(NcclState* s) const;
};
using NcclStatePtr = std::unique_ptr<NcclState, NcclStateDeleter>;
// Collective: the default communicators, the symmetric windows and one communicator per
// forced configuration in `configs`. nullptr when this build has no NCCL.
NcclStatePtr make_nccl_state(Context& ctx, const NcclSizes& sizes,
                             const std::vector<NcclConfig>& configs = nccl_configs());

bool built_with_nccl();
std::string nccl_version_string();

}  // namespace pk::coll
