#pragma once
// The NCCL baseline's host side: one communicator per GPU (harness/nccl_comms.h), and the
// dispatch and combine a framework without DeepEP would run (kernels/ep/nccl_steps.cuh), every
// kernel and NCCL call of it inside the timed operation. The per-peer token counts of
// ncclSend/ncclRecv come from the seeded routing, which every rank knows: a framework learns
// them by copying the exchanged counts to the host and synchronising, a cost this baseline
// leaves out (in its favour); the count exchange itself (ncclAllToAll) stays in.
// Builds without NCCL: the class exists and refuses with the reason (a skipped row).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#ifdef PKBENCH_HAVE_NCCL
#include <nccl.h>
#endif

#include "microbench/ep/ep_context.h"

namespace pk::ep {

struct Context::Nccl {
#ifdef PKBENCH_HAVE_NCCL
  std::map<int, ncclComm_t> comms;
#endif
  ~Nccl();
};

class NcclBaseline {
 public:
  // SkipPoint when NCCL cannot run here (virtual ranks, a build without NCCL).
  NcclBaseline(Context& c, int blocks);
  void dispatch();  // one dispatch on every local GPU
  void combine();
  int enqueues_per_op() const { return 4 + 2 * ctx_.ranks(); }
  int blocks() const { return blocks_; }
  static std::string version();

 private:
  void group_start();
  void group_end();
  // The grouped ncclSend/ncclRecv per peer of every local GPU (reverse: the combine's).
  void exchange(bool reverse, uint64_t row_bytes);
  Context& ctx_;
  int blocks_;
  // Host-known rows per peer of each local GPU: sent to q, received from q, and their offsets.
  struct Sizes {
    std::vector<int> out, in, out_off, in_off;
  };
  std::map<int, Sizes> sizes_;
};

}  // namespace pk::ep
