#pragma once
// Shared pieces of the synchronisation study: options, per-GPU scratch memory, turning
// in-kernel cycle counts into nanoseconds, and the variant table each level adds to.
#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../../kernels/status.cuh"
#include "../harness/cuda_check.h"
#include "../harness/device_runtime.h"
#include "../harness/peer_group.h"
#include "../harness/tidy_csv.h"
#include "../harness/topology.h"

namespace pk::sync {

struct TimingRecord;  // kernels/sync_timing.cuh

struct SyncOptions {
  int iters = 2000;       // measured operations per variant (>= 1000: medians of >= 1000)
  int warmup_iters = 100;  // run first, not recorded
  double timeout_ms = 500;  // any spin-wait; a missing partner is an error well within 1 s
  int gpu_a = 0, gpu_b = 1;
};

// What a variant measured: nanoseconds per operation, and how they were clocked.
struct LatencyResult {
  std::vector<double> ns;
  std::string clock_source;
  double clock_resolution_ns = 0;
  int sm_a = -1, sm_b = -1;
  double gbps = 0;  // bandwidth variants
};

class SyncContext {
 public:
  SyncContext(const Topology& t, PeerGroup& g, SyncOptions o);
  ~SyncContext();
  const Topology& topo() const { return topo_; }
  PeerGroup& group() { return group_; }
  const SyncOptions& opt() const { return opt_; }
  StatusBoard& status() { return status_; }
  Gate& gate() { return gate_; }
  cudaStream_t stream(int gpu) { return streams_.get(gpu, 0); }
  Deadline deadline(int gpu) { return status_.deadline(gpu, opt_.timeout_ms); }
  int total_iters() const { return opt_.iters + opt_.warmup_iters; }

  // Zeroed flag words on `gpu` (each on its own 128-B line), valid until the next call.
  int* flags(int gpu, int count);
  // Per-GPU buffers for cycle counts and the timing record.
  uint32_t* cycles(int gpu);
  TimingRecord* record(int gpu);
  int* scratch_int(int gpu);  // e.g. a partner's %smid
  // The address through which `from` reaches `owner`'s memory `p`.
  template <class T>
  T* peer(int from, int owner, T* p) const {
    return static_cast<T*>(group_.peer_ptr(from, owner, p));
  }
  // Gates every GPU's stream, enqueues `launch(gpu)` on each, opens the gate so they start
  // together, then waits and checks the status words.
  template <class Launch>
  void launch_together(const std::vector<int>& gpus, Launch launch) {
    for (int g : gpus) {
      PK_CUDA_CHECK(cudaSetDevice(g));
      gate_.arm(stream(g), deadline(g));
      launch(g);
      PK_CUDA_CHECK_LAUNCH();
    }
    gate_.open();
    sync_and_check(gpus);
  }
  // A library-style peer table on `gpu`: entry pe = the address `gpu` uses for pe's memory.
  unsigned long long* peer_table(int gpu, const std::map<int, const void*>& entries);
  // Large per-GPU buffers, allocated on first use.
  void* big(int gpu, const std::string& name, size_t bytes);

  // %globaltimer's measured step on `gpu` (ns), measured once.
  double globaltimer_resolution_ns(int gpu);

  // Copies `gpu`'s cycles and record back and converts the measured part to ns, calibrating
  // clock64 against %globaltimer over the kernel; checks the status word first.
  LatencyResult collect(int gpu);
  void sync_and_check(const std::vector<int>& gpus);

 private:
  const Topology& topo_;
  PeerGroup& group_;
  SyncOptions opt_;
  StatusBoard status_;
  Gate gate_;
  StreamPool streams_;
  std::map<int, char*> scratch_;
  std::map<std::pair<int, std::string>, void*> big_;
  std::map<int, double> gt_res_;
};

struct Variant {
  std::string level;      // intra_sm | inter_sm | cross_gpu | library | host | clock
  std::string primitive;  // e.g. flag_pingpong, mbarrier_pingpong, grid_barrier
  std::string scope;      // cta | gpu | sys | host
  std::string semantics;  // e.g. release_acquire, relaxed_fence, red_release, library_style
  std::string placement;  // where flags live, where polls go (cross-GPU), or ""
  int participants = 1;   // warps, blocks or GPUs
  bool round_trip = false;  // ns are round trips: one-way = half
  int gpus_needed = 1;
  std::function<LatencyResult(SyncContext&)> run;
  std::string name() const;
};

// Shared with the library level (sync_cross_gpu.cu): dependent loads by `reader` over a
// buffer on `owner`, and the PK signal (red.release.sys to the partner, local acquire poll).
LatencyResult pointer_chase(SyncContext& c, int reader, int owner, bool library_style);
LatencyResult pk_signal_pingpong(SyncContext& c);

void add_intra_sm_variants(std::vector<Variant>& v);
void add_inter_sm_variants(std::vector<Variant>& v, int sm_count);
void add_cross_gpu_variants(std::vector<Variant>& v, int n_gpus);
void add_library_variants(std::vector<Variant>& v);
void add_host_variants(std::vector<Variant>& v);

const std::vector<std::string>& sync_columns();
// Statistics of a result as CSV fields (one_way_ns, round_trip_ns, p10/p90, spread...).
Row sync_row(const Variant& v, const LatencyResult& r);

}  // namespace pk::sync
