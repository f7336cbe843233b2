#include "microbench/fused/fused_nccl.h"

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "microbench/harness/cuda_check.h"

#ifdef PKBENCH_HAVE_NCCL
#include "microbench/harness/nccl_comms.h"
#endif

namespace pk::fused {

#ifdef PKBENCH_HAVE_NCCL
struct NcclComms::Set {
  std::map<int, ncclComm_t> comms;  // group GPU -> communicator
};
#else
struct NcclComms::Set {};
#endif

NcclComms::NcclComms(PeerGroup& g) : g_(g) {}

#ifdef PKBENCH_HAVE_NCCL

bool NcclComms::built() { return true; }
std::string NcclComms::version() {
  int v = 0;
  ncclGetVersion(&v);
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// Destroy alone, as nccl-tests does: it finalizes internally, and a blocking
// ncclCommFinalize of one of several communicators driven by one thread would wait for the
// others' finalize.
NcclComms::~NcclComms() {
  for (auto& [ctas, s] : sets_)
    for (auto& [gpu, c] : s->comms) {
      g_.set_device(gpu);
      cudaDeviceSynchronize();
      ncclCommDestroy(c);
    }
}

void NcclComms::ensure(int max_ctas) {
  if (sets_.count(max_ctas)) return;
  auto s = std::make_unique<Set>();
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  cfg.blocking = 1;
  if (max_ctas > 0) {
    cfg.minCTAs = 1;
    cfg.maxCTAs = max_ctas;
  }
  s->comms = make_nccl_comms(g_, &cfg);
  sets_[max_ctas] = std::move(s);
}

NcclComms::Set& NcclComms::set(int max_ctas) {
  auto it = sets_.find(max_ctas);
  if (it == sets_.end()) throw std::logic_error("NCCL communicators for maxCTAs=" + std::to_string(max_ctas) + " not created");
  return *it->second;
}

void NcclComms::reduce_scatter(int gpu, int ctas, const void* send, void* recv, size_t n, cudaStream_t s) {
  PK_NCCL_CHECK(ncclReduceScatter(send, recv, n, ncclBfloat16, ncclSum, set(ctas).comms.at(gpu), s));
}
void NcclComms::all_gather(int gpu, int ctas, const void* send, void* recv, size_t n, cudaStream_t s) {
  PK_NCCL_CHECK(ncclAllGather(send, recv, n, ncclBfloat16, set(ctas).comms.at(gpu), s));
}
void NcclComms::all_reduce(int gpu, int ctas, const void* send, void* recv, size_t n, cudaStream_t s) {
  PK_NCCL_CHECK(ncclAllReduce(send, recv, n, ncclBfloat16, ncclSum, set(ctas).comms.at(gpu), s));
}
void NcclComms::reduce(int gpu, int ctas, const void* send, void* recv, size_t n, int root, cudaStream_t s) {
  PK_NCCL_CHECK(ncclReduce(send, recv, n, ncclBfloat16, ncclSum, root, set(ctas).comms.at(gpu), s));
}
void NcclComms::broadcast(int gpu, int ctas, const void* send, void* recv, size_t n, int root, cudaStream_t s) {
  PK_NCCL_CHECK(ncclBroadcast(send, recv, n, ncclBfloat16, root, set(ctas).comms.at(gpu), s));
}
void NcclComms::group_start() {
  if (g_.local_gpus().size() > 1) PK_NCCL_CHECK(ncclGroupStart());
}
void NcclComms::group_end() {
  if (g_.local_gpus().size() > 1) PK_NCCL_CHECK(ncclGroupEnd());
}

#else  // no NCCL in this build: the NCCL schedules are skipped before any of this is called

bool NcclComms::built() { return false; }
std::string NcclComms::version() { return ""; }
NcclComms::~NcclComms() = default;
namespace {
[[noreturn]] void unavailable() { throw SkipPoint("this build has no NCCL"); }
}  // namespace
void NcclComms::ensure(int) { unavailable(); }
NcclComms::Set& NcclComms::set(int) { unavailable(); }
void NcclComms::reduce_scatter(int, int, const void*, void*, size_t, cudaStream_t) { unavailable(); }
void NcclComms::all_gather(int, int, const void*, void*, size_t, cudaStream_t) { unavailable(); }
void NcclComms::all_reduce(int, int, const void*, void*, size_t, cudaStream_t) { unavailable(); }
void NcclComms::reduce(int, int, const void*, void*, size_t, int, cudaStream_t) { unavailable(); }
void NcclComms::broadcast(int, int, const void*, void*, size_t, int, cudaStream_t) { unavailable(); }
void NcclComms::group_start() {}
void NcclComms::group_end() {}

#endif

}  // namespace pk::fused
