// all_reduce: every rank's output is the sum over ranks of their inputs; `bytes` is the
// vector (nccl-tests' all_reduce_perf).
#include "microbench/collectives/coll_problem.h"

namespace pk::coll {
namespace {

class AllReduce final : public VectorCollective {
  int layout() const override { return kAllReduce; }
  double busbw_factor(int n) const override { return 2.0 * (n - 1) / n; }
  NcclFunc nccl_func() const override { return NcclFunc::all_reduce; }
  RefMap ref_map(const Problem&, int) const override { return {1, -1, 0, {0}, {1}, 0}; }
};

}  // namespace

PK_DECLARE_COLLECTIVE(all_reduce, AllReduce)

}  // namespace pk::coll
