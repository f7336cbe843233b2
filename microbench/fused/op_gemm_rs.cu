// GEMM + reduce-scatter: every GPU computes C_g = A_g * B_g^T (M x N, K sharded); GPU s ends
// with rows [s M/w, (s+1) M/w) of sum_g C_g. The components and non-overlapped baselines are
// the common ones (fused_impl.cu); here the overlapped baseline's chunks and the fused kernels.
#include "microbench/fused/fused_context.h"

namespace pk::fused {

std::unique_ptr<Impl> make_gemm_rs(const Point& p, Context& c) {
  if (p.schedule == "intra_sm" || p.schedule == "inter_sm") return make_fused_reduce(p, c);
  if (p.schedule != "cublas_nccl_overlap") throw std::logic_error("gemm_rs has no schedule " + p.schedule);
  // Chunk j = the j-th block of rows of every shard: its GEMM pieces, then one ncclReduce per
  // shard to the shard's owner (a reduce-scatter of the chunk, rooted where the rows belong).
  const int w = c.world(), shard = p.shape.m / w, chunks = p.knob(knobs::chunks.name);
  OverlapPlan plan = chunked_plan(shard, chunks, "the " + std::to_string(shard) + "-row shard");
  const int rows = plan.rows;
  const int64_t n = p.shape.n;
  plan.pieces = [=](int j, int) {
    std::vector<int> v;
    for (int s = 0; s < w; ++s) v.push_back(s * shard + j * rows);
    return v;
  };
  plan.comm = [&c, w, shard, rows, n](int j, int g, int ctas, cudaStream_t st) {
    for (int s = 0; s < w; ++s)
      c.nccl.reduce(g, ctas, c.partial(g) + (int64_t(s) * shard + int64_t(j) * rows) * n, c.out(g) + int64_t(j) * rows * n,
                    size_t(rows) * n, s, st);
  };
  return make_overlap(p, c, plan);
}

}  // namespace pk::fused
