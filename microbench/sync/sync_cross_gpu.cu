// Across GPUs over NVLink: flag ping-pong through peer memory (signal by writing the
// partner's memory, or by writing locally and letting the partner poll over the link) with
// every memory ordering from relaxed to release/acquire,
// one GPU signalling all others, a barrier across GPUs against the GPU count, and the
// latency of a dependent load from the peer's memory against local memory.
#include "kernels/sync_library_style.cuh"  // chase kernels
#include "kernels/sync_signal.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/sync/sync_common.h"

namespace pk::sync {
namespace {

// a, b < 0: the run's --gpus.
template <class Sem>
LatencyResult pingpong_two_gpus(SyncContext& c, bool remote_write, int a = -1, int b = -1) {
  if (a < 0) a = c.opt().gpu_a, b = c.opt().gpu_b;
  c.reset_flags();
  PingPongSide init{}, resp{};
  c.on(a, [&] {
    // remote_write: write the partner's flag, poll your own; else write your own, poll the
    // partner's over NVLink.
    init = remote_write ? PingPongSide{c.flag(a, b), c.flag(a, a), true, c.cycles(a), c.record(a), nullptr}
                        : PingPongSide{c.flag(a, a), c.flag(a, b), true, c.cycles(a), c.record(a), nullptr};
  });
  c.on(b, [&] {
    resp = remote_write ? PingPongSide{c.flag(b, a), c.flag(b, b), false, nullptr, nullptr, nullptr}
                        : PingPongSide{c.flag(b, b), c.flag(b, a), false, nullptr, nullptr, nullptr};
  });
  c.launch_together({b, a}, [&](int g) {
    const PingPongSide& s = g == a ? init : resp;
    flag_pingpong_kernel<Sem><<<1, 32, 0, c.stream(g)>>>(s, s, c.total_iters(), c.deadline(g));
  });
  for (int g : {a, b})
    c.on(g, [&] {
      int end = 0;
      PK_CUDA_CHECK(cudaMemcpy(&end, c.flag(g, g), sizeof(int), cudaMemcpyDeviceToHost));
      if (end != c.total_iters())
        throw std::runtime_error("GPU" + std::to_string(g) + "'s flag ended at " + std::to_string(end) + ", expected " +
                                 std::to_string(c.total_iters()));
    });
  return c.collect(a);
}

std::vector<int> first_gpus(int n) {
  std::vector<int> v;
  for (int g = 0; g < n; ++g) v.push_back(g);
  return v;
}

LatencyResult one_to_all(SyncContext& c, int n) {
  const int root = 0;
  c.reset_flags();
  c.launch_together(first_gpus(n), [&](int g) {
    // Flag 0 of every GPU receives the root's signal; flag 1 of the root collects the answers.
    one_to_all_kernel<<<1, 32, 0, c.stream(g)>>>(c.flag_table(g, 0), c.flag(g, root, 1), n, g, root,
                                                 c.total_iters(), c.cycles(g), c.record(g), c.deadline(g));
  });
  return c.collect(root);
}

LatencyResult gpu_barrier(SyncContext& c, int n) {
  c.reset_flags();
  c.launch_together(first_gpus(n), [&](int g) {
    gpu_barrier_kernel<<<1, 32, 0, c.stream(g)>>>(c.flag_table(g, 0), n, g, c.total_iters(), c.cycles(g), c.record(g),
                                                  c.deadline(g));
  });
  for (int g = 0; g < n; ++g)
    c.on(g, [&] {
      int end = 0;
      PK_CUDA_CHECK(cudaMemcpy(&end, c.flag(g, g), sizeof end, cudaMemcpyDeviceToHost));
      if (end != n * c.total_iters()) throw std::runtime_error("barrier counter ended at " + std::to_string(end));
    });
  return c.collect(0);
}

}  // namespace

LatencyResult pk_signal_pingpong(SyncContext& c) { return pingpong_two_gpus<RedReleaseSys>(c, true); }

// A dependent pointer chase over the 256 MiB chase buffer (256-B slots in pseudo-random
// order, mostly L2 misses) that lives on `owner`, run from `reader`.
LatencyResult pointer_chase(SyncContext& c, int reader, int owner) {
  constexpr uint64_t kStrideWords = 32;
  const uint64_t slots = c.chase().bytes() / (kStrideWords * 8);
  c.on(owner, [&] {
    build_chase_kernel<<<1024, 256>>>(reinterpret_cast<uint64_t*>(c.chase().local(owner)), slots, kStrideWords);
    PK_CUDA_CHECK_LAUNCH();
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  });
  c.barrier();  // built before anyone reads it
  c.on(reader, [&] {
    const auto* base = reinterpret_cast<const uint64_t*>(c.chase().at(reader, owner));
    chase_kernel<false><<<1, 32, 0, c.stream(reader)>>>(base, nullptr, owner, 0, c.total_iters(), c.cycles(reader),
                                                       c.record(reader));
    PK_CUDA_CHECK_LAUNCH();
  });
  c.sync_and_check({reader});
  return c.collect(reader);
}

void add_cross_gpu_variants(std::vector<Variant>& v, const SyncMachine& m) {
  const int n_gpus = m.gpus;
  const std::string rw = "remote_write_local_poll", lw = "local_write_remote_poll";
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "release_acquire", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<ReleaseAcquireSys>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "relaxed_fence", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<RelaxedFenceSys>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "red_release", rw, 2, true, 2, pk_signal_pingpong});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "volatile_fence", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<VolatileFence>(c, true); }});
  // No ordering at all: what the flag alone costs. Correct only when the flag guards no data.
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "relaxed", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<RelaxedSys>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "volatile", rw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<VolatileNoFence>(c, true); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "release_acquire", lw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<ReleaseAcquireSys>(c, false); }});
  v.push_back({"cross_gpu", "flag_pingpong", "sys", "relaxed", lw, 2, true, 2,
               [](SyncContext& c) { return pingpong_two_gpus<RelaxedSys>(c, false); }});
  for (int n = 2; n <= std::max(2, std::min(n_gpus, kMaxGpus)); ++n) {
    v.push_back({"cross_gpu", "one_to_all_signal", "sys", "red_release", "", n, true, n,
                 [n](SyncContext& c) { return one_to_all(c, n); }});
    v.push_back({"cross_gpu", "gpu_barrier", "sys", "red_release", "", n, false, n,
                 [n](SyncContext& c) { return gpu_barrier(c, n); }});
  }
  v.push_back({"cross_gpu", "dependent_load", "sys", "relaxed", "local_hbm", 1, false, 1,
               [](SyncContext& c) { return pointer_chase(c, c.opt().gpu_a, c.opt().gpu_a); }});
  v.push_back({"cross_gpu", "dependent_load", "sys", "relaxed", "peer_hbm", 2, false, 2,
               [](SyncContext& c) { return pointer_chase(c, c.opt().gpu_a, c.opt().gpu_b); }});
  // On three or more GPUs, every pair: behind an NVSwitch each pair crosses the switch, and
  // a pair whose round trip stands out is a finding (the release/acquire signal, as the
  // collectives use it, and the dependent load from the peer's memory).
  if (n_gpus < 3) return;
  for (int a = 0; a < std::min(n_gpus, kMaxGpus); ++a)
    for (int b = a + 1; b < std::min(n_gpus, kMaxGpus); ++b) {
      // The pair in the placement too: the summaries and pkbench_compare key rows on it.
      const std::string pair = " (GPUs " + std::to_string(a) + "-" + std::to_string(b) + ")";
      Variant pp{"cross_gpu", "flag_pingpong_pairs", "sys", "release_acquire", rw + pair, 2, true, 2,
                 [a, b](SyncContext& c) { return pingpong_two_gpus<ReleaseAcquireSys>(c, true, a, b); }};
      pp.pair_a = a, pp.pair_b = b;
      v.push_back(pp);
      Variant dl{"cross_gpu", "dependent_load_pairs", "sys", "relaxed", "peer_hbm" + pair, 2, false, 2,
                 [a, b](SyncContext& c) { return pointer_chase(c, a, b); }};
      dl.pair_a = a, dl.pair_b = b;
      v.push_back(dl);
    }
}

}  // namespace pk::sync
