// broadcast: root 0's buffer lands in every rank's output; `bytes` is that buffer, and the
// bus-bandwidth factor is 1 (nccl-tests' broadcast_perf, root 0).
#include "microbench/collectives/coll_problem.h"

namespace pk::coll {
namespace {

class Broadcast final : public VectorCollective {
  int layout() const override { return 7; }  // past the kernels' LayoutCodes (coll_reference.cuh)
  double busbw_factor(int) const override { return 1.0; }
  NcclFunc nccl_func() const override { return NcclFunc::broadcast; }
  // out[j] = in_0[j]
  RefMap ref_map(const Problem&, int) const override { return {0, -1, 0, {0}, {1}, 0}; }
};

}  // namespace

PK_DECLARE_COLLECTIVE(broadcast, Broadcast)

}  // namespace pk::coll
