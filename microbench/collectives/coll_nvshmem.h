#pragma once
// NVSHMEM baseline ("nvshmem"), measured the way NVSHMEM's perftests measure it
// (perftest/host/coll/*_on_stream): the host-side on-stream collectives on
// NVSHMEM_TEAM_WORLD, one PE per process and GPU, source and destination in the symmetric
// heap (nvshmem_malloc):
//   all_reduce      nvshmemx_{bfloat16,float}_sum_reduce_on_stream
//   all_gather      nvshmemx_{bfloat16,float}_fcollect_on_stream
//   reduce_scatter  nvshmemx_{bfloat16,float}_sum_reducescatter_on_stream
//   all_to_all      nvshmemx_{bfloat16,float}_alltoall_on_stream
// (plain layouts only). Plain C++ interface: no NVSHMEM header here.
#include <cstdint>
#include <memory>
#include <string>

#include "microbench/collectives/coll_nccl.h"

namespace pk::coll {

class Context;

class NvshmemState;
struct NvshmemStateDeleter {
  void operator()(NvshmemState* s) const;
};
using NvshmemStatePtr = std::unique_ptr<NvshmemState, NvshmemStateDeleter>;

// Collective. Built only where NVSHMEM can run: under mpirun with one GPU per process (the
// caller checks nvshmem_process_reason first). Sets NVSHMEM_SYMMETRIC_SIZE from `sizes`
// (user_in + user_out, with headroom) and NVSHMEM_DISABLE_NCCL=1 unless the user set them,
// initialises NVSHMEM (pk::NvshmemRuntime) and allocates the two symmetric buffers. A
// failure does not throw: the state keeps the reason and every NVSHMEM row is skipped with
// it. nullptr when this build has no NVSHMEM.
NvshmemStatePtr make_nvshmem_state(Context& ctx, const NcclSizes& sizes);

// "" when this process layout can run NVSHMEM (MPI, one GPU per process), else the reason.
std::string nvshmem_process_reason(bool under_mpi, int processes, int local_gpus);

bool built_with_nvshmem();

}  // namespace pk::coll
