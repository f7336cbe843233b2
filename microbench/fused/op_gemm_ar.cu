// GEMM + all-reduce: every GPU computes C_g = A_g * B_g^T (M x N, K sharded) and ends with
// sum_g C_g. The components and non-overlapped baselines are the common ones
// (fused_impl.cu); here the overlapped baseline's chunks and the fused kernels.
#include "microbench/fused/fused_context.h"

namespace pk::fused {

std::unique_ptr<Impl> make_gemm_ar(const Point& p, Context& c) {
  if (p.schedule == "intra_sm" || p.schedule == "inter_sm") return make_fused_reduce(p, c);
  if (p.schedule != "cublas_nccl_overlap") throw std::logic_error("gemm_ar has no schedule " + p.schedule);
  // Chunk j = rows [j M/chunks, (j+1) M/chunks): its GEMM, then ncclAllReduce of those rows.
  const int chunks = p.knob(knobs::chunks.name);
  OverlapPlan plan = chunked_plan(p.shape.m, chunks, "M=" + std::to_string(p.shape.m));
  const int rows = plan.rows;
  const int64_t n = p.shape.n;
  plan.pieces = [=](int j, int) { return std::vector<int>{j * rows}; };
  plan.comm = [&c, rows, n](int j, int g, int ctas, cudaStream_t st) {
    const int64_t at = int64_t(j) * rows * n;
    c.nccl.all_reduce(g, ctas, c.partial(g) + at, c.out(g) + at, size_t(rows) * n, st);
  };
  return make_overlap(p, c, plan);
}

}  // namespace pk::fused
