#pragma once
// NCCL for the fused study's baselines, measured as NCCL is used: one communicator per GPU
// (harness/nccl_comms.h), buffers as the caller gives them. A communicator set per CTA limit:
// the overlapped baseline gives NCCL comm_sms CTAs (ncclConfig_t::maxCTAs) and cuBLASLt the
// rest. No nccl.h here: builds without NCCL get available() false.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "microbench/harness/peer_group.h"

namespace pk::fused {

class NcclComms {
 public:
  explicit NcclComms(PeerGroup& g);
  ~NcclComms();
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  static bool built();
  static std::string version();

  // Collective: creates the communicators limited to max_ctas CTAs (0: NCCL's default) on
  // first use. Throws std::runtime_error with NCCL's message.
  void ensure(int max_ctas);

  // bf16 sums; counts in elements; enqueued on `s` of `gpu` (driven here, current device).
  void reduce_scatter(int gpu, int max_ctas, const void* send, void* recv, size_t recv_count, cudaStream_t s);
  void all_gather(int gpu, int max_ctas, const void* send, void* recv, size_t send_count, cudaStream_t s);
  void all_reduce(int gpu, int max_ctas, const void* send, void* recv, size_t count, cudaStream_t s);
  void reduce(int gpu, int max_ctas, const void* send, void* recv, size_t count, int root, cudaStream_t s);
  void broadcast(int gpu, int max_ctas, const void* send, void* recv, size_t count, int root, cudaStream_t s);
  // ncclGroupStart/End around the calls of several GPUs of this process (else no-ops).
  void group_start();
  void group_end();

 private:
  struct Set;
  Set& set(int max_ctas);
  PeerGroup& g_;
  std::map<int, std::unique_ptr<Set>> sets_;
};

}  // namespace pk::fused
