// Section 3.1.4: library-style (NVSHMEM-shaped) remote access against the PK way, in one
// run: element-wise put bandwidth, get latency, and signal round trips.
#include <algorithm>

#include "../../kernels/sync_library_style.cuh"
#include "../../kernels/sync_signal.cuh"
#include "../harness/cuda_check.h"
#include "sync_common.h"

namespace pk::sync {
namespace {

constexpr uint64_t kPutInts = 16ull << 20;  // 64 MiB per put pass
constexpr unsigned char kPoison = 0xC3;

// 4-byte puts from a (local source) into b's memory; timed per pass with events; the
// destination is checked against the source afterwards.
LatencyResult put_bandwidth(SyncContext& c, bool library_style) {
  const int a = c.opt().gpu_a, b = c.opt().gpu_b;
  const uint64_t bytes = kPutInts * sizeof(int);
  auto* src = static_cast<int*>(c.big(a, "put_src", bytes));
  auto* dst = static_cast<int*>(c.big(b, "put_dst", bytes));
  fill_pattern(a, src, bytes, 4242, 0);
  PK_CUDA_CHECK(cudaSetDevice(b));
  PK_CUDA_CHECK(cudaMemset(dst, kPoison, bytes));
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  int* dst_from_a = c.peer(a, b, dst);
  const unsigned long long* table = c.peer_table(a, {{b, dst_from_a}});
  PK_CUDA_CHECK(cudaSetDevice(a));
  const int blocks = c.topo().gpus[a].sm_count * 4, threads = 256;
  EventPair ev;
  LatencyResult r;
  r.clock_source = "cuda events around each pass";
  for (int i = 0; i < c.opt().iters + 3; ++i) {  // one sample per pass, as many as any latency
    PK_CUDA_CHECK(cudaEventRecord(ev.start, c.stream(a)));
    if (library_style) library_put_kernel<<<blocks, threads, 0, c.stream(a)>>>(table, b, src, kPutInts);
    else pk_put_kernel<<<blocks, threads, 0, c.stream(a)>>>(dst_from_a, src, kPutInts);
    PK_CUDA_CHECK_LAUNCH();
    PK_CUDA_CHECK(cudaEventRecord(ev.stop, c.stream(a)));
    const float t = ev.elapsed_ms();
    if (i >= 3) r.ns.push_back(t * 1e6);
  }
  PatternCheck chk = check_pattern(b, dst, bytes, 4242, 0);
  if (chk.mismatched_words)
    throw std::runtime_error("put verification failed: " + std::to_string(chk.mismatched_words) + " words differ");
  std::vector<double> sorted = r.ns;
  std::sort(sorted.begin(), sorted.end());
  r.gbps = bytes / sorted[sorted.size() / 2];  // bytes per ns = GB/s
  return r;
}

LatencyResult library_signal_pingpong(SyncContext& c) {
  const int a = c.opt().gpu_a, b = c.opt().gpu_b;
  int* fa = c.flags(a, 1);
  int* fb = c.flags(b, 1);
  const unsigned long long* ta = c.peer_table(a, {{a, fa}, {b, c.peer(a, b, fb)}});
  const unsigned long long* tb = c.peer_table(b, {{a, c.peer(b, a, fa)}, {b, fb}});
  c.launch_together({b, a}, [&](int g) {
    const bool init = g == a;
    library_pingpong_kernel<<<1, 128, 0, c.stream(g)>>>(init ? ta : tb, init ? b : a, 0, init ? fa : fb, init,
                                                        c.total_iters(), c.cycles(g), c.record(g), c.deadline(g));
  });
  return c.collect(a);
}

}  // namespace

void add_library_variants(std::vector<Variant>& v) {
  v.push_back({"library", "put_4B", "sys", "library_style", "peer_hbm", 1, false, 2,
               [](SyncContext& c) { return put_bandwidth(c, true); }});
  v.push_back({"library", "put_4B", "sys", "pk_style", "peer_hbm", 1, false, 2,
               [](SyncContext& c) { return put_bandwidth(c, false); }});
  v.push_back({"library", "get", "sys", "library_style", "peer_hbm", 1, false, 2,
               [](SyncContext& c) { return pointer_chase(c, c.opt().gpu_a, c.opt().gpu_b, true); }});
  v.push_back({"library", "get", "sys", "pk_style", "peer_hbm", 1, false, 2,
               [](SyncContext& c) { return pointer_chase(c, c.opt().gpu_a, c.opt().gpu_b, false); }});
  v.push_back({"library", "signal_pingpong", "sys", "library_style", "remote_write_local_poll", 2, true, 2,
               library_signal_pingpong});
  v.push_back({"library", "signal_pingpong", "sys", "pk_style", "remote_write_local_poll", 2, true, 2,
               pk_signal_pingpong});
}

}  // namespace pk::sync
