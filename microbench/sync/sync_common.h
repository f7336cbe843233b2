#pragma once
// Shared pieces of the synchronisation study: options, symmetric scratch memory (flags,
// cycle buffers, timing records), turning in-kernel cycle counts into nanoseconds, and the
// variant table each level adds to. A variant runs on every process: work on a GPU happens
// in the process that drives it, and results travel from there to every rank.
#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernels/status.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/topology.h"

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
  int ops_per_sample = 1;  // operations each sample of `ns` is the mean of (their time: the point's timed work)
  std::string clock_source;
  double clock_resolution_ns = 0;
  int sm_a = -1, sm_b = -1;
  double gbps = 0;  // bandwidth variants
};

class SyncContext {
 public:
  SyncContext(PeerGroup& g, SyncOptions o);  // collective
  ~SyncContext();
  const Topology& topo() const { return group_.topology(); }
  PeerGroup& group() { return group_; }
  const SyncOptions& opt() const { return opt_; }
  StatusBoard& status() { return status_; }
  cudaStream_t stream(int gpu) { return streams_.get(gpu, 0); }
  Deadline deadline(int gpu) { return status_.deadline(gpu, opt_.timeout_ms); }
  int total_iters() const { return opt_.iters + opt_.warmup_iters; }
  bool drives(int gpu) const { return group_.drives(gpu); }

  // Flags: 128-B lines of a symmetric buffer. reset_flags() zeroes them on every GPU
  // (collective); flag(from, owner, i) is owner's flag i as `from` addresses it.
  void reset_flags();
  int* flag(int from, int owner, int i = 0) const;
  PeerTable<int> flag_table(int from, int i = 0) const;
  // Single-GPU variants (run by the driving process alone): zeroed local flags.
  int* local_flags(int gpu);
  // Per-GPU buffers for cycle counts and the timing record (gpu driven here).
  uint32_t* cycles(int gpu);
  TimingRecord* record(int gpu);
  int* scratch_int(int gpu);  // e.g. a partner's %smid
  // Large symmetric buffers allocated up front (allocation is collective).
  const SymBuf& chase() const { return chase_; }
  const SymBuf& small() const { return small_; }

  // Gates the streams of `gpus` that this process drives, enqueues `launch(gpu)` on each,
  // opens the gate for every process so they start together, then waits and checks the
  // status words (every process learns the first failure).
  template <class Launch>
  void launch_together(const std::vector<int>& gpus, Launch launch) {
    std::string err;
    try {
      for (int g : gpus) {
        if (!drives(g)) continue;
        gate_.arm(g, stream(g), deadline(g));
        launch(g);
        PK_CUDA_CHECK_LAUNCH();
      }
    } catch (const std::exception& e) {
      err = e.what();
    }
    gate_.open();
    if (!err.empty()) {
      sync_local(gpus);
      throw std::runtime_error(group_.comm().first_error(err));
    }
    sync_and_check(gpus);
  }
  // Runs `fn` in the process driving `gpu` (errors reach every process).
  void on(int gpu, const std::function<void()>& fn);
  // Runs a single-GPU variant in the process driving `gpu` alone (inside it, collect() and
  // sync_and_check() stay local) and gives its result to every process.
  LatencyResult solo(int gpu, const std::function<LatencyResult()>& fn);
  // A barrier over the processes (nothing inside solo()).
  void barrier();
  // The result measured by `gpu`'s process, on every process.
  LatencyResult share(int gpu, const LatencyResult& r);

  // %globaltimer's measured step on `gpu` (ns), measured once (driving process).
  double globaltimer_resolution_ns(int gpu);

  // Copies `gpu`'s cycles and record back and converts the measured part to ns, calibrating
  // clock64 against %globaltimer over the kernel; every process gets the result.
  LatencyResult collect(int gpu);
  // Synchronises the driven GPUs of `gpus` and checks their status words; collective.
  void sync_and_check(const std::vector<int>& gpus);

 private:
  void sync_local(const std::vector<int>& gpus);
  LatencyResult collect_local(int gpu);
  PeerGroup& group_;
  SyncOptions opt_;
  StatusBoard status_;
  Gate gate_;
  StreamPool streams_;
  SymBuf scratch_, chase_, small_;
  std::map<int, double> gt_res_;
  bool solo_ = false;
};

struct Variant {
  std::string level;      // intra_sm | inter_sm | cross_gpu | host | clock
  std::string primitive;  // e.g. flag_pingpong, mbarrier_pingpong, grid_barrier
  std::string scope;      // cta | gpu | sys | host
  std::string semantics;  // memory ordering: release_acquire, relaxed, relaxed_fence, red_release, ...
  std::string placement;  // where flags live, where polls go (cross-GPU), or ""
  int participants = 1;   // warps, blocks or GPUs
  bool round_trip = false;  // ns are round trips: one-way = half
  int gpus_needed = 1;    // 1: runs in gpu_a's process alone
  std::function<LatencyResult(SyncContext&)> run;
  // The two GPUs it runs on, where it is one of a sweep over every pair (-1: the run's --gpus).
  int pair_a = -1, pair_b = -1;
  std::string name() const;
};

// Shared with other levels: dependent loads by `reader` over the chase buffer of `owner`,
// and the PK signal (red.release.sys to the partner, local acquire poll).
LatencyResult pointer_chase(SyncContext& c, int reader, int owner);
LatencyResult pk_signal_pingpong(SyncContext& c);

// What a variant source plans for: the SMs of a GPU and the GPUs of the run.
struct SyncMachine {
  int sm_count = 0;
  int gpus = 0;
};
// Each line's variant source (sync_list.h), wherever its file defines it.
#define PK_SYNC_VARIANTS(name) void add_##name##_variants(std::vector<Variant>& v, const SyncMachine& m);
#include "microbench/sync/sync_list.h"
#undef PK_SYNC_VARIANTS
// Every line's variants, in the list's order.
std::vector<Variant> all_variants(const SyncMachine& m);

const std::vector<std::string>& sync_columns();
// Statistics of a result as CSV fields (one_way_ns, round_trip_ns, p10/p90, spread...).
Row sync_row(const Variant& v, const LatencyResult& r);
// What the recorded samples measured, in ms (each sample times ops_per_sample operations): the
// point's timed work; warm-up operations are not samples.
double timed_ms(const LatencyResult& r);

}  // namespace pk::sync
