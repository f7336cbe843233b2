// The tensor-dimension collectives (Figures 15-17 of the paper): all-gather and
// reduce-scatter along the last dimension of a row-major (rows, cols) matrix, and the 4-D
// all-to-all of (B, S, H, D) that scatters H and gathers S. NCCL runs them as its plain
// function plus the reshape copies a user of NCCL needs.
#include "microbench/collectives/coll_problem.h"

namespace pk::coll {

namespace {

// (rows, cols) per rank; `block` is rows.
class Cols : public Collective {
 public:
  bool tensor() const override { return true; }
  uint64_t size_unit(uint64_t elem_bytes, int n, const TensorDims& d) const override { return elem_bytes * n * d.cols; }
  std::string unit_words(int n, const TensorDims& d) const override {
    return " per rank on " + std::to_string(n) + " ranks with " + std::to_string(d.cols) + " columns per rank";
  }
  std::string dims_refusal(int, const TensorDims& d) const override {
    return d.cols == 0 ? "--tensor-cols: must be positive" : "";
  }
  double busbw_factor(int n) const override { return static_cast<double>(n - 1) / n; }

 protected:
  static void shape_cols(Problem& p, uint64_t rows, const TensorDims& d, bool gather) {
    p.rows = rows;
    p.cols = d.cols;
    shape_gathered(p, p.rows * p.cols, gather);
  }
};

// in (rows, cols), out (rows, n*cols): out[i][s*cols + c] = in_s[i][c]
class AllGatherCols final : public Cols {
  int layout() const override { return kAllGatherCols; }
  void shape(Problem& p, uint64_t block, const TensorDims& d) const override { shape_cols(p, block, d, true); }
  NcclFunc nccl_func() const override { return NcclFunc::all_gather; }
  RefMap ref_map(const Problem& p, int) const override {
    return {0, 1, 0, {p.cols, static_cast<uint64_t>(p.n), 0}, {1, 0, p.cols}, 0};
  }
  std::optional<SegLayout> direct_layout(const Problem& p) const override {
    return SegLayout{1, p.rows, p.cols, 0, p.cols, 0, 0, p.n * p.cols, p.cols, 0, 0, 0};
  }
  // NCCL gathers (n, rows, cols); the user needs (rows, n, cols).
  ReshapePlan nccl_reshape(const Problem& p, uint64_t piece_bytes) const override {
    ReshapePlan r = Collective::nccl_reshape(p, piece_bytes);
    r.after = finish_layout({1, p.rows, p.cols, 0, p.cols, p.rows * p.cols, 0, p.n * p.cols, p.cols, 0, 0, 0},
                            p.elem_bytes(), piece_bytes);
    return r;
  }
};

// in (rows, n*cols), out (rows, cols): out[i][c] = sum_s in_s[i][rank*cols + c]
class ReduceScatterCols final : public Cols {
  int layout() const override { return kReduceScatterCols; }
  void shape(Problem& p, uint64_t block, const TensorDims& d) const override { shape_cols(p, block, d, false); }
  NcclFunc nccl_func() const override { return NcclFunc::reduce_scatter; }
  RefMap ref_map(const Problem& p, int rank) const override {
    return {1, -1, 0, {p.cols, 0}, {1, p.n * p.cols}, rank * p.cols};
  }
  std::optional<SegLayout> direct_layout(const Problem& p) const override {
    return SegLayout{1, p.rows, p.cols, 0, p.n * p.cols, p.cols, 0, p.cols, 0, 0, 0, 0};
  }
  // The user has (rows, n, cols); NCCL scatters (n, rows, cols).
  ReshapePlan nccl_reshape(const Problem& p, uint64_t piece_bytes) const override {
    ReshapePlan r = Collective::nccl_reshape(p, piece_bytes);
    r.before = finish_layout({1, p.rows, p.cols, 0, p.n * p.cols, p.cols, 0, p.cols, p.rows * p.cols, 0, 0, 0},
                             p.elem_bytes(), piece_bytes);
    return r;
  }
};

// in (B, Sl, H, D), out (B, n*Sl, H/n, D): heads block `rank` of every rank's input,
// gathered along the sequence. `block` is Sl (the sequence per rank).
class AllToAll4d final : public Collective {
  int layout() const override { return kAllToAll4d; }
  bool tensor() const override { return true; }
  void shape(Problem& p, uint64_t block, const TensorDims& d) const override {
    p.B = d.batch;
    p.Sl = block;
    p.H = d.heads;
    p.D = d.head_dim;
    p.in_elems = p.out_elems = p.B * p.Sl * p.H * p.D;
    p.count = p.in_elems / p.n;
    p.bytes = p.in_elems * p.elem_bytes();
  }
  uint64_t size_unit(uint64_t elem_bytes, int, const TensorDims& d) const override {
    return elem_bytes * d.batch * d.heads * d.head_dim;
  }
  std::string unit_words(int n, const TensorDims& d) const override {
    return " per rank on " + std::to_string(n) + " ranks of (B=" + std::to_string(d.batch) +
           ", S, H=" + std::to_string(d.heads) + ", D=" + std::to_string(d.head_dim) + ") rows";
  }
  std::string dims_refusal(int n, const TensorDims& d) const override {
    if (d.batch == 0 || d.heads == 0 || d.head_dim == 0) return "--a2a-shape: dimensions must be positive";
    if (d.heads % n != 0)
      return "--a2a-shape: " + std::to_string(d.heads) + " heads do not split over " + std::to_string(n) + " ranks";
    return "";
  }
  double busbw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  NcclFunc nccl_func() const override { return NcclFunc::all_to_all; }
  // Output digits (d, h, sl, source rank, b) of radix (D, H/n, Sl, n, B).
  RefMap ref_map(const Problem& p, int rank) const override {
    const uint64_t hn = p.H / p.n;
    return {0, 3, 0, {p.D, hn, p.Sl, static_cast<uint64_t>(p.n), 0}, {1, p.D, p.H * p.D, 0, p.Sl * p.H * p.D},
            rank * hn * p.D};
  }
  std::optional<SegLayout> direct_layout(const Problem& p) const override {
    const uint64_t run = p.H / p.n * p.D;
    return SegLayout{p.B, p.Sl, run, p.Sl * p.H * p.D, p.H * p.D, run, p.n * p.Sl * run, run, p.Sl * run, 0, 0, 0};
  }
  // (B, Sl, n, Hn, D) -> (n, B, Sl, Hn, D) -> a2a -> (n, B, Sl, Hn, D) -> (B, n*Sl, Hn, D)
  ReshapePlan nccl_reshape(const Problem& p, uint64_t piece_bytes) const override {
    ReshapePlan r = Collective::nccl_reshape(p, piece_bytes);
    const uint64_t n = p.n, e = p.elem_bytes(), run = p.H / n * p.D, blk = p.B * p.Sl * run;
    r.before = finish_layout({p.B, p.Sl, run, p.Sl * p.H * p.D, p.H * p.D, run, p.Sl * run, run, blk, 0, 0, 0}, e,
                             piece_bytes);
    r.after = finish_layout({p.B, p.Sl, run, p.Sl * run, run, blk, n * p.Sl * run, run, p.Sl * run, 0, 0, 0}, e,
                            piece_bytes);
    r.nccl_count = blk;
    return r;
  }
};

}  // namespace

PK_DECLARE_COLLECTIVE(all_gather_cols, AllGatherCols)
PK_DECLARE_COLLECTIVE(reduce_scatter_cols, ReduceScatterCols)
PK_DECLARE_COLLECTIVE(all_to_all_4d, AllToAll4d)

}  // namespace pk::coll
