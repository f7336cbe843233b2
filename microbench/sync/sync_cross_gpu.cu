// Across GPUs over NVLink: flag ping-pong through peer memory (signal by writing the
// partner's memory, or by writing locally and letting the partner poll over the link),
// one GPU signalling all others, a barrier across GPUs against the GPU count, and the
// latency of a dependent load from the peer's memory against local memory.
#include "../../kernels/sync_library_style.cuh"
#include "../../kernels/sync_signal.cuh"
#include "../harness/cuda_check.h"
#include "sync_common.h"

namespace pk::sync {
namespace {

template <class Sem>
LatencyResult pingpong_two_gpus(SyncContext& c, bool remote_write) {
  const int a = c.opt().gpu_a, b = c.opt().gpu_b;
  int* fa = c.flags(a, 1);
  int* fb = c.flags(b, 1);
  PingPongSide init{}, resp{};
  if (remote_write) {  // write the partner's memory, poll your own
    init = {c.peer(a, b, fb), fa, true, c.cycles(a), c.record(a), nullptr};
    resp = {c.peer(b, a, fa), fb, false, nullptr, nullptr, nullptr};
  } else {  // write your own memory, poll the partner's over NVLink
    init = {fa, c.peer(a, b, fb), true, c.cycles(a), c.record(a), nullptr};
    resp = {fb, c.peer(b, a, fa), false, nullptr, nullptr, nullptr};
  }
  c.launch_together({b, a}, [&](int g) {
    const PingPongSide& s = g == a ? init : resp;
    flag_pingpong_kernel<Sem><<<1, 32, 0, c.stream(g)>>>(s, s, c.total_iters(), c.deadline(g));
  });
  int ends[2];
  PK_CUDA_CHECK(cudaMemcpy(&ends[0], fa, sizeof(int), cudaMemcpyDeviceToHost));
  PK_CUDA_CHECK(cudaMemcpy(&ends[1], fb, sizeof(int), cudaMemcpyDeviceToHost));
  if (ends[0] != c.total_iters() || ends[1] != c.total_iters())
    throw std::runtime_error("flags ended at " + std::to_string(ends[0]) + "/" + std::to_string(ends[1]));
  return c.collect(a);
}

std::vector<int> first_gpus(int n) {
  std::vector<int> v;
  for (int g = 0; g < n; ++g) v.push_back(g);
  return v;
}

LatencyResult one_to_all(SyncContext& c, int n) {
  const int root = 0;
  std::vector<int*> flag(n);
  for (int g = 0; g < n; ++g) flag[g] = c.flags(g, 2);
  int* acks = flag[root] + 32;
  c.launch_together(first_gpus(n), [&](int g) {
    GpuCounters f{};
    for (int x = 0; x < n; ++x) f.at[x] = x == g ? flag[x] : c.peer(g, x, flag[x]);
    int* ack = g == root ? acks : c.peer(g, root, acks);
    one_to_all_kernel<<<1, 32, 0, c.stream(g)>>>(f, ack, n, g, root, c.total_iters(), c.cycles(g), c.record(g),
                                                 c.deadline(g));
  });
  return c.collect(root);
}

LatencyResult gpu_barrier(SyncContext& c, int n) {
  std::vector<int*> counter(n);
  for (int g = 0; g < n; ++g) counter[g] = c.flags(g, 1);
  c.launch_together(first_gpus(n), [&](int g) {
    GpuCounters k{};
    for (int x = 0; x < n; ++x) k.at[x] = x == g ? counter[x] : c.peer(g, x, counter[x]);
    gpu_barrier_kernel<<<1, 32, 0, c.stream(g)>>>(k, n, g, c.total_iters(), c.cycles(g), c.record(g), c.deadline(g));
  });
  for (int g = 0; g < n; ++g) {
    int end = 0;
    PK_CUDA_CHECK(cudaMemcpy(&end, counter[g], sizeof end, cudaMemcpyDeviceToHost));
    if (end != n * c.total_iters()) throw std::runtime_error("barrier counter ended at " + std::to_string(end));
  }
  return c.collect(0);
}

}  // namespace

LatencyResult pk_signal_pingpong(SyncContext& c) { return pingpong_two_gpus<RedReleaseSys>(c, true); }

// A dependent pointer chase over a 256 MiB buffer (256-B slots in pseudo-random order,
// mostly L2 misses) that lives on `owner`, run from `reader`. Shared with the library level.
LatencyResult pointer_chase(SyncContext& c, int reader, int owner, bool library_style) {
  constexpr uint64_t kBytes = 256ull << 20, kStrideWords = 32, kSlots = kBytes / (kStrideWords * 8);
  auto* buf = static_cast<uint64_t*>(c.big(owner, "chase", kBytes));
  PK_CUDA_CHECK(cudaSetDevice(owner));
  build_chase_kernel<<<1024, 256>>>(buf, kSlots, kStrideWords);
  PK_CUDA_CHECK_LAUNCH();
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  const uint64_t* base = reader == owner ? buf : c.peer(reader, owner, buf);
  // The library-style read looks the base up in a table on the reader, every hop.
  const unsigned long long* table = c.peer_table(reader, {{owner, base}});
  if (library_style)
    chase_kernel<true><<<1, 32, 0, c.stream(reader)>>>(base, table, owner, 0, c.total_iters(), c.cycles(reader),
                                                      c.record(reader));
  else
    chase_kernel<false><<<1, 32, 0, c.stream(reader)>>>(base, table, owner, 0, c.total_iters(), c.cycles(reader),
                                                       c.record(reader));
  PK_CUDA_CHECK_LAUNCH();
  c.sync_and_check({reader});
  return c.collect(reader);
}

void add_cross_gpu_variants(std::vector<Variant>& v, int n_gpus) {
  const std::string rw = "remote_write_local_poll", lw = "local_write_remote_poll";
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "release_acquire", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<ReleaseAcquireSys>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "relaxed_fence", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<RelaxedFenceSys>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "red_release", rw, 2, true, 2, pk_signal_pingpong});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "volatile_fence", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<VolatileFence>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "release_acquire", lw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<ReleaseAcquireSys>(c, false); }});
  for (int n = 2; n <= std::max(2, std::min(n_gpus, kMaxGpus)); ++n) {
    v.push_back({"cross_gpu", "one_to_all_signal", "sys", "red_release", "", n, true, n,
                 [n](SyncContext& c) { return one_to_all(c, n); }});
    v.push_back({"cross_gpu", "gpu_barrier", "sys", "red_release", "", n, false, n,
                 [n](SyncContext& c) { return gpu_barrier(c, n); }});
  }
  v.push_back({"cross_gpu", "dependent_load", "sys", "relaxed", "local_hbm", 1, false, 1,
               [](SyncContext& c) { return pointer_chase(c, c.opt().gpu_a, c.opt().gpu_a, false); }});
  v.push_back({"cross_gpu", "dependent_load", "sys", "relaxed", "peer_hbm", 2, false, 2,
               [](SyncContext& c) { return pointer_chase(c, c.opt().gpu_a, c.opt().gpu_b, false); }});
}

}  // namespace pk::sync
