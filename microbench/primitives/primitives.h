#pragma once
// The primitives study: real library primitives (NVSHMEM, NCCL's device API) beside
// PK-style access and the NVSHMEM-shaped emulation, in one run, on the same GPUs.
// A style = a catalogue entry per point (primitives_catalogue.cu) + a runner (style_*.cu)
// that measures a Spec and returns its row. Runners are collective: every rank runs every
// point, and each returns the same row on every rank.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/status.cuh"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"
#include "microbench/primitives/primitives_schema.h"

namespace pk::sync {
struct TimingRecord;
}

namespace pk::prim {

using pk::sync::TimingRecord;

struct Options {
  int iters = 1000;              // timed operations per latency point (hops, round trips, barriers)
  int warmup = 100;              // run first in the same launch, not recorded
  int latency_samples = 200;     // element-put latency: samples of `calls_per_sample` calls
  int calls_per_sample = 64;
  double timeout_ms = 500;       // every wait; a missing partner is an error within 1 s
  int bw_samples = 5;            // bandwidth: timed samples (FlowTimer)
  double target_sample_ms = 2;
  std::vector<uint64_t> bulk_sizes = {1024, 4096, 16384, 65536, 262144, 1048576};
  uint64_t bulk_pass_bytes = 64ull << 20;
  uint64_t chain_small_bytes = 4ull << 20;   // resident in the owner's L2 (50-60 MB)
  uint64_t chain_large_bytes = 1ull << 30;   // mostly L2 misses
  uint64_t nvbw_bytes = 2ull << 20;          // nvbandwidth's latency buffer
  uint64_t nvbw_accesses = 1000000;          // nvbandwidth's latencyMemAccessCnt
  int gpu_a = 0, gpu_b = 1;                  // a issues (puts to b, reads from b); b answers
};

// Threads per block of the bandwidth passes, and blocks per SM.
constexpr int kBwThreads = 256;
constexpr int kBwBlocksPerSm = 2;
// Bytes per thread of an element-put bandwidth pass (128 4-B or 32 16-B elements).
constexpr int kBwBytesPerThread = 512;
// Latency shape of the element puts: threads of the timed block per scope.
int group_threads(const std::string& scope);

// Per-run state every style shares: the group, the gate, status words, streams, the PK
// symmetric buffers and per-GPU timing scratch.
class Context {
 public:
  Context(PeerGroup& g, Options o);
  ~Context();
  PeerGroup& group() { return group_; }
  Comm& comm() { return group_.comm(); }
  const Options& opt() const { return opt_; }
  int a() const { return opt_.gpu_a; }
  int b() const { return opt_.gpu_b; }
  bool drives(int gpu) const { return group_.drives(gpu); }
  int sm_count(int gpu) const { return group_.topology().gpus.at(gpu).sm_count; }
  int total_iters() const { return opt_.iters + opt_.warmup; }
  StatusBoard& status() { return status_; }
  Gate& gate() { return gate_; }
  cudaStream_t stream(int gpu) { return streams_.get(gpu, 0); }
  Deadline deadline(int gpu) { return status_.deadline(gpu, opt_.timeout_ms); }

  // PK symmetric buffers (same size on every GPU), allocated on first use (collective).
  const SymBuf& buf(const std::string& name, uint64_t bytes);
  // Per-GPU scratch: cycle counts, the timing record, a mismatch counter.
  uint32_t* cycles(int gpu);
  TimingRecord* record(int gpu);
  unsigned* mismatches(int gpu);

  // Runs fn on this rank for `gpu` if it drives it (device set); every rank agrees on
  // failure (collective).
  void on(int gpu, const std::function<void()>& fn);
  // Zeroes `bytes` of `b` on every GPU (collective).
  void zero(const SymBuf& b, uint64_t bytes);
  void fill(int gpu, void* p, uint64_t bytes, uint64_t seed);   // pattern (collective)
  void poison(int gpu, void* p, uint64_t bytes);                // 0xC3 bytes (collective)
  // Pattern check on `gpu`'s memory p (collective); throws if any word differs.
  void check(int gpu, const void* p, uint64_t bytes, uint64_t seed, const std::string& what);

  // Gates and launches launch(gpu) on every listed GPU this rank drives, opens the gate
  // (all ranks), waits and checks the status words; every rank throws the first failure.
  void launch_together(const std::vector<int>& gpus, const std::function<void(int)>& launch);
  // clock64 cycles of `gpu`'s last timed kernel, converted to ns at the clock measured
  // against %globaltimer over that kernel, warm-up dropped, shared with every rank; their sum
  // is the point's timed work (point_cost.h). Allocation, fills and checks are its `setup`,
  // `fill` and `verify` parts, launch_together its `samples`.
  std::vector<double> collect_ns(int gpu, int count, int skip);
  unsigned long long collect_sink(int gpu);
  unsigned collect_mismatches(int gpu);
  // Bandwidth of back-to-back enqueue(stream) calls on `gpu`, each moving `bytes`
  // (FlowTimer: gated, events, MPI_MAX over ranks). Returns GB/s of the median sample;
  // *ops = operations per sample. before_last (collective) runs before the last sample: the
  // caller re-poisons what the passes write (and changes their input where it can), so the
  // check after it sees the last sample's work, not what the warm-up left behind.
  double bandwidth(int gpu, uint64_t bytes, const std::function<void(cudaStream_t)>& enqueue, int* ops,
                   const std::function<void()>& before_last);
  // Every rank gets root_rank's row.
  Row share(const Row& r, int root_rank);

 private:
  PeerGroup& group_;
  Options opt_;
  StatusBoard status_;
  Gate gate_;
  StreamPool streams_;
  SymBuf scratch_;
  std::map<std::string, SymBuf> bufs_;
};

// Latency statistics of ns samples into a row (value = median, or median / 2 for round trips).
Row latency_row(const Spec& s, const std::vector<double>& ns, bool round_trip, const std::string& clock_source);
inline constexpr const char* kClockInKernel = "clock64 per op; SM clock measured against %globaltimer over the kernel";

// ---- the catalogue and the runners ----
std::vector<Spec> catalogue(const Options& o);
// Each style's runner (style_list.h), wherever its file defines it.
#define PK_PRIM_STYLE(name, runner) Row runner(Context& c, const Spec& s);
#include "microbench/primitives/style_list.h"
#undef PK_PRIM_STYLE
// Each library is set up at its first point (collective); what it could not do is the
// reason its rows are errors. release_libraries() tears both down before MPI ends.
void release_libraries();
void release_nccl();
void release_nvshmem();
// Versions for the log.
std::string nccl_version_text();
std::string nvshmem_version_text();

Row run_spec(Context& c, const Spec& s);

// A style's signal wait with no partner (only a responder is launched, on GPU a): must end
// in a timeout error. Returns the wall time until every rank knew, in ms; throws if the wait
// did not time out or failed otherwise. Collective.
inline constexpr const char* kOpLonelyWait = "lonely_wait";
double lonely_wait(Context& c, const std::string& style);
// The NVSHMEM signal variant whose wait is our bounded poll, then nvshmem_signal_wait_until
// (the headline rows wait with the library's call alone, as its perftests do); the lonely
// wait uses it, since the library's own wait cannot time out.
inline constexpr const char* kNvshmemBoundedMode = "set_bounded_poll";

// The chain buffers the library styles read, for the PK-style rows on the same memory:
// the owner's own address (to build the chain) and the reader's view of it (collective;
// SkipPoint where the library is absent).
struct ForeignChain {
  uint64_t* on_owner = nullptr;
  const uint64_t* reader_view = nullptr;
};
ForeignChain nvshmem_chain(Context& c, uint64_t bytes, int reader, int owner);
ForeignChain nccl_chain(Context& c, uint64_t bytes, int reader, int owner);

}  // namespace pk::prim
