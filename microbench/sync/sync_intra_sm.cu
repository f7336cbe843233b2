// Inside one SM: mbarrier ping-pong between two warps; __syncthreads and named barriers
// for 1..32 warps.
#include "kernels/sync_intra_sm.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/sync/sync_common.h"

namespace pk::sync {
namespace {

LatencyResult mbarrier_pingpong(SyncContext& c) {
  const int g = c.opt().gpu_a;
  c.group().set_device(g);
  mbarrier_pingpong_kernel<<<1, 64, 0, c.stream(g)>>>(c.total_iters(), c.cycles(g), c.record(g), c.deadline(g));
  PK_CUDA_CHECK_LAUNCH();
  c.sync_and_check({g});
  return c.collect(g);
}

template <bool Named>
LatencyResult block_barrier(SyncContext& c, int warps) {
  const int g = c.opt().gpu_a;
  c.group().set_device(g);
  block_barrier_kernel<Named><<<1, warps * 32, 0, c.stream(g)>>>(c.total_iters(), c.cycles(g), c.record(g));
  PK_CUDA_CHECK_LAUNCH();
  c.sync_and_check({g});
  return c.collect(g);
}

}  // namespace

void add_intra_sm_variants(std::vector<Variant>& v, const SyncMachine&) {
  v.push_back({"intra_sm", "mbarrier_pingpong", "cta", "arrive_wait", "two warps", 2, true, 1, mbarrier_pingpong});
  for (int w : {1, 2, 4, 8, 16, 32}) {
    v.push_back({"intra_sm", "syncthreads", "cta", "bar.sync 0", "", w, false, 1,
                 [w](SyncContext& c) { return block_barrier<false>(c, w); }});
    v.push_back({"intra_sm", "named_barrier", "cta", "bar.sync 1", "", w, false, 1,
                 [w](SyncContext& c) { return block_barrier<true>(c, w); }});
  }
}

}  // namespace pk::sync
