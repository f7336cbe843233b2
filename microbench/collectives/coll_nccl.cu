#include "microbench/collectives/coll_nccl.h"

#include <algorithm>
#include <cstdlib>

#include "kernels/collectives/push_segments.cuh"
#include "microbench/collectives/coll_harness.h"

#ifdef PKBENCH_HAVE_NCCL
#include "microbench/collectives/coll_nccl_state.h"
#endif

namespace pk::coll {

void NcclSizes::add(const Problem& p) {
  const uint64_t e = p.elem_bytes();
  const ReshapePlan r = nccl_reshape_plan(p, SegConfig::kPieceBytes);
  user_in = std::max(user_in, p.in_elems * e);
  user_out = std::max(user_out, p.out_elems * e);
  send = std::max(send, r.nccl_send_elems * e);
  recv = std::max(recv, r.nccl_recv_elems * e);
  if (r.before.n1) reshape_send = std::max(reshape_send, r.nccl_send_elems * e);
  if (r.after.n1) reshape_recv = std::max(reshape_recv, r.nccl_recv_elems * e);
}

#ifndef PKBENCH_HAVE_NCCL

class NcclState {};
NcclStatePtr make_nccl_state(Context&, const NcclSizes&, const std::vector<NcclConfig>&) { return nullptr; }
void NcclStateDeleter::operator()(NcclState* s) const { delete s; }
bool built_with_nccl() { return false; }
std::string nccl_version_string() { return ""; }
ImplList nccl_impls() { return {}; }

#else

bool built_with_nccl() { return true; }
std::string nccl_version_string() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "NCCL ?";
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

NcclStatePtr make_nccl_state(Context& ctx, const NcclSizes& sizes, const std::vector<NcclConfig>& configs) {
  return NcclStatePtr(new NcclState(ctx, sizes, configs));
}
void NcclStateDeleter::operator()(NcclState* s) const { delete s; }

// Defined in coll_nccl_impl.cu (it launches the reshape kernels).
ImplList make_nccl_impls();
ImplList nccl_impls() { return make_nccl_impls(); }

#endif  // PKBENCH_HAVE_NCCL

}  // namespace pk::coll
