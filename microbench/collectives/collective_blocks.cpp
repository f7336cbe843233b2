// The collectives of plain per-rank blocks (nccl-tests' all_gather_perf, reduce_scatter_perf,
// alltoall_perf): `count` is one rank's block (all-to-all: one peer's), `bytes` the larger
// side (the gathered output, the scattered input, one rank's send buffer).
#include "microbench/collectives/coll_problem.h"

namespace pk::coll {

namespace {

class Blocks : public Collective {
  uint64_t size_unit(uint64_t elem_bytes, int n, const TensorDims&) const override { return elem_bytes * n; }
  std::string unit_words(int n, const TensorDims&) const override {
    return " per rank on " + std::to_string(n) + " ranks";
  }
  double busbw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
};

// out[s * count + j] = in_s[j]
class AllGather final : public Blocks {
  int layout() const override { return kAllGather; }
  void shape(Problem& p, uint64_t block, const TensorDims&) const override { shape_gathered(p, block, true); }
  NcclFunc nccl_func() const override { return NcclFunc::all_gather; }
  RefMap ref_map(const Problem& p, int) const override { return {0, 1, 0, {p.count, 0}, {1, 0}, 0}; }
  std::optional<SegLayout> direct_layout(const Problem& p) const override {
    return SegLayout{1, 1, p.count, 0, 0, 0, 0, 0, p.count, 0, 0, 0};
  }
};

// out[j] = sum_s in_s[rank * count + j]
class ReduceScatter final : public Blocks {
  int layout() const override { return kReduceScatter; }
  void shape(Problem& p, uint64_t block, const TensorDims&) const override { shape_gathered(p, block, false); }
  NcclFunc nccl_func() const override { return NcclFunc::reduce_scatter; }
  RefMap ref_map(const Problem& p, int rank) const override { return {1, -1, 0, {0}, {1}, rank * p.count}; }
  std::optional<SegLayout> direct_layout(const Problem& p) const override {
    return SegLayout{1, 1, p.count, 0, 0, p.count, 0, 0, 0, 0, 0, 0};
  }
};

// out[s * count + j] = in_s[rank * count + j]
class AllToAll final : public Blocks {
  int layout() const override { return kAllToAll; }
  void shape(Problem& p, uint64_t block, const TensorDims&) const override {
    p.count = block;
    p.in_elems = p.out_elems = block * p.n;
    p.bytes = p.in_elems * p.elem_bytes();
  }
  NcclFunc nccl_func() const override { return NcclFunc::all_to_all; }
  RefMap ref_map(const Problem& p, int rank) const override { return {0, 1, 0, {p.count, 0}, {1, 0}, rank * p.count}; }
  std::optional<SegLayout> direct_layout(const Problem& p) const override {
    return SegLayout{1, 1, p.count, 0, 0, p.count, 0, 0, p.count, 0, 0, 0};
  }
};

}  // namespace

PK_DECLARE_COLLECTIVE(all_gather, AllGather)
PK_DECLARE_COLLECTIVE(reduce_scatter, ReduceScatter)
PK_DECLARE_COLLECTIVE(all_to_all, AllToAll)

}  // namespace pk::coll
