#include "microbench/harness/nccl_comms.h"

#include <stdexcept>

#include <string>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"

namespace pk {

void throw_nccl_error(ncclResult_t r, const char* expr) {
  const char* last = ncclGetLastError(nullptr);
  throw std::runtime_error(std::string(expr) + ": " + ncclGetErrorString(r) +
                           (last && *last ? std::string(" (") + last + ")" : std::string()));
}

std::map<int, ncclComm_t> make_nccl_comms(PeerGroup& g, ncclConfig_t* cfg) {
  if (const std::string why = g.library_skip_reason("NCCL"); !why.empty()) throw SkipPoint(why);
  point_cost::Phase cost("communicator");
  Comm& comm = g.comm();
  ncclUniqueId id{};
  collectively(comm, [&] {
    if (comm.rank() == 0) PK_NCCL_CHECK(ncclGetUniqueId(&id));
  });
  comm.broadcast(&id, sizeof id, 0);
  std::map<int, ncclComm_t> comms;
  collectively(comm, [&] {
    ncclConfig_t defaults = NCCL_CONFIG_INITIALIZER;
    ncclConfig_t* c = cfg ? cfg : &defaults;
    const auto& gpus = g.local_gpus();
    if (gpus.size() > 1) PK_NCCL_CHECK(ncclGroupStart());
    for (int gpu : gpus) {
      g.set_device(gpu);
      ncclComm_t nc = nullptr;
      PK_NCCL_CHECK(ncclCommInitRankConfig(&nc, g.size(), id, gpu, c));
      comms[gpu] = nc;
    }
    if (gpus.size() > 1) PK_NCCL_CHECK(ncclGroupEnd());
  });
  return comms;
}

}  // namespace pk
