// Between SMs of one GPU, through L2: flag ping-pong between two blocks pinned to
// different SMs (scopes gpu and sys, several semantics), the latency of a returning atomic,
// and a grid-wide barrier against the number of blocks.
#include <set>

#include "kernels/sync_signal.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/sm_pinning.h"
#include "microbench/sync/sync_common.h"

namespace pk::sync {
namespace {

template <class Sem>
LatencyResult pingpong_two_sms(SyncContext& c) {
  const int g = c.opt().gpu_a;
  c.group().set_device(g);
  int* f = c.local_flags(g);
  int* a = f;       // the initiator's flag
  int* b = f + 32;  // the responder's flag, 128 B away
  int* partner_sm = c.scratch_int(g);
  PingPongSide init{b, a, true, c.cycles(g), c.record(g), nullptr};
  PingPongSide resp{a, b, false, nullptr, nullptr, partner_sm};
  auto l = pin_to_sms(reinterpret_cast<const void*>(&flag_pingpong_kernel<Sem>), 2, 1, 32, 0, c.topo().gpus[g]);
  flag_pingpong_kernel<Sem><<<l.grid, l.block, l.smem, c.stream(g)>>>(init, resp, c.total_iters(), c.deadline(g));
  PK_CUDA_CHECK_LAUNCH();
  c.sync_and_check({g});
  LatencyResult r = c.collect(g);
  PK_CUDA_CHECK(cudaMemcpy(&r.sm_b, partner_sm, sizeof(int), cudaMemcpyDeviceToHost));
  if (r.sm_a == r.sm_b) throw std::runtime_error("both blocks ran on SM " + std::to_string(r.sm_a));
  int ends[2];
  PK_CUDA_CHECK(cudaMemcpy(&ends[0], a, sizeof(int), cudaMemcpyDeviceToHost));
  PK_CUDA_CHECK(cudaMemcpy(&ends[1], b, sizeof(int), cudaMemcpyDeviceToHost));
  if (ends[0] != c.total_iters() || ends[1] != c.total_iters())
    throw std::runtime_error("flags ended at " + std::to_string(ends[0]) + "/" + std::to_string(ends[1]) +
                             ", expected " + std::to_string(c.total_iters()));
  return r;
}

template <bool System>
LatencyResult atomic_latency(SyncContext& c) {
  const int g = c.opt().gpu_a;
  c.group().set_device(g);
  int* f = c.local_flags(g);
  atomic_latency_kernel<System><<<1, 32, 0, c.stream(g)>>>(f, c.total_iters(), c.cycles(g), c.record(g));
  PK_CUDA_CHECK_LAUNCH();
  c.sync_and_check({g});
  int end = 0;
  PK_CUDA_CHECK(cudaMemcpy(&end, f, sizeof end, cudaMemcpyDeviceToHost));
  if (end != c.total_iters()) throw std::runtime_error("counter ended at " + std::to_string(end));
  return c.collect(g);
}

LatencyResult grid_barrier(SyncContext& c, int blocks) {
  const int g = c.opt().gpu_a;
  c.group().set_device(g);
  int* f = c.local_flags(g);
  auto l = pin_to_sms(reinterpret_cast<const void*>(&grid_barrier_kernel), blocks, 1, 32, 0, c.topo().gpus[g]);
  grid_barrier_kernel<<<l.grid, l.block, l.smem, c.stream(g)>>>(f, f + 32, c.total_iters(), c.cycles(g), c.record(g),
                                                                c.deadline(g));
  PK_CUDA_CHECK_LAUNCH();
  c.sync_and_check({g});
  int gen = 0;
  PK_CUDA_CHECK(cudaMemcpy(&gen, f + 32, sizeof gen, cudaMemcpyDeviceToHost));
  if (gen != c.total_iters()) throw std::runtime_error("barrier generation ended at " + std::to_string(gen));
  return c.collect(g);
}

}  // namespace

void add_inter_sm_variants(std::vector<Variant>& v, const SyncMachine& m) {
  const int sm_count = m.sm_count;
  v.push_back({"inter_sm", "flag_pingpong", "gpu", "release_acquire", "", 2, true, 1,
               pingpong_two_sms<ReleaseAcquireGpu>});
  v.push_back({"inter_sm", "flag_pingpong", "gpu", "relaxed_fence", "", 2, true, 1, pingpong_two_sms<RelaxedFenceGpu>});
  v.push_back({"inter_sm", "flag_pingpong", "gpu", "red_release", "", 2, true, 1, pingpong_two_sms<RedReleaseGpu>});
  v.push_back({"inter_sm", "flag_pingpong", "sys", "release_acquire", "", 2, true, 1,
               pingpong_two_sms<ReleaseAcquireSys>});
  v.push_back({"inter_sm", "flag_pingpong", "sys", "relaxed_fence", "", 2, true, 1, pingpong_two_sms<RelaxedFenceSys>});
  v.push_back({"inter_sm", "flag_pingpong", "sys", "red_release", "", 2, true, 1, pingpong_two_sms<RedReleaseSys>});
  v.push_back({"inter_sm", "flag_pingpong", "sys", "volatile_fence", "", 2, true, 1, pingpong_two_sms<VolatileFence>});
  v.push_back({"inter_sm", "atomic_add_return", "gpu", "acq_rel", "", 1, false, 1, atomic_latency<false>});
  v.push_back({"inter_sm", "atomic_add_return", "sys", "acq_rel", "", 1, false, 1, atomic_latency<true>});
  std::set<int> counts = {sm_count};
  for (int b : {2, 4, 8, 16, 32, 64, 128})
    if (b < sm_count) counts.insert(b);
  for (int b : counts) {
    v.push_back({"inter_sm", "grid_barrier", "gpu", "counter_generation", "", b, false, 1,
                 [b](SyncContext& c) { return grid_barrier(c, b); }});
  }
}

}  // namespace pk::sync
