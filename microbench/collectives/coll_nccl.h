#pragma once
// NCCL baselines, measured the way nccl-tests measures them: one communicator per GPU
// (harness/nccl_comms.h: a unique id broadcast over pk::Comm, grouped initialisation when
// one process drives every GPU, as ncclCommInitAll does), ordinary cudaMalloc buffers ("nccl") and ncclMemAlloc
// buffers registered as symmetric windows ("nccl_sym", nccl-tests -R 2:
// ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC)). The tensor-dimension cases add
// the reshape copies a user of NCCL needs (coll_problem.h: nccl_reshape_plan).
#include <cstdint>
#include <memory>
#include <string>

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
// Collective. nullptr when this build has no NCCL.
NcclStatePtr make_nccl_state(Context& ctx, const NcclSizes& sizes);

// Before any NCCL call: ask NCCL to log its algorithm/protocol choice per collective
// (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=TUNING) into a file this process reads back, unless
// the user set NCCL_DEBUG. Returns the file ("" when not logging).
std::string arm_nccl_tuning_log();

bool built_with_nccl();
std::string nccl_version_string();

}  // namespace pk::coll
