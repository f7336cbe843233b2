#pragma once
// The common harness of the collective study (nccl-tests' common.cu in spirit): one
// collective = one small file that registers implementations; this file times them,
// checks them and writes their rows.
//
// Per point (collective, implementation, size, dtype, launch mode), on every rank alike:
//   prepare   implementation setup; inputs filled with the random pattern
//             (coll_reference.cuh), outputs poisoned (NaN), signals zeroed;
//   time      pk::FlowTimer: one flow per local GPU, all streams behind the start gate, a
//             step = the slowest GPU of every rank (MPI_MAX); median / p10 / p90 over the
//             samples. Every implementation, ours and the baselines, runs the same number
//             of collectives per sample, ops_per_sample(bytes): eager, that many launches;
//             graph, one launch of a graph holding that many. The device-time view
//             (time_us_*).
//   nccl-tests  the same collective timed as nccl-tests times it (nccltests_method.h):
//             barrier, host clock around `iters` back-to-back calls or one launch of a
//             graph of `iters` (-G 1), stream sync, average over ranks; a reader can check
//             it with all_reduce_perf (time_us_nccltests, the headline);
//   check     after timing, the timed configuration once more (the same graph, or the same
//             eager calls) on new inputs (another seed) into re-poisoned outputs, then every
//             output element against the fp64 reference: an implementation that wrote
//             during warm-up and nothing since fails; a wrong result makes the point an
//             error row with no timing in it.
#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/collectives/coll_check.cuh"
#include "kernels/collectives/coll_params.cuh"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"
#include "microbench/collectives/coll_nccl.h"
#include "microbench/collectives/coll_nvshmem.h"
#include "microbench/collectives/coll_problem.h"
#include "microbench/collectives/coll_schema.h"

namespace pkbench::tuning {
class Tuner;
}

namespace pk::coll {

struct StudyConfig {
  std::vector<std::string> collectives;
  std::vector<std::string> impls;  // empty: all
  std::vector<DType> dtypes;
  std::vector<uint64_t> sizes, tensor_sizes;
  std::vector<uint64_t> counts, tensor_counts;  // explicit per-rank blocks instead of sizes
  bool sizes_given = false, tensor_sizes_given = false;
  std::vector<LaunchMode> modes;
  TensorDims dims;
  TimingOptions timing;
  int ops_per_sample = 100;  // most collectives per timed sample (fewer for large sizes)
  int nccltests_iters = 20;  // nccl-tests' -n
  int nccltests_graph_launches = 1;  // nccl-tests' -G in graph mode: launches of the graph of `iters`
  int nccltests_repeats = 1;  // runs of the whole method per point; time_us_nccltests is their median
  bool nccltests_shift = false;  // NCCL rows move their buffers per iteration as nccl-tests does
  uint64_t seed = 0x5eed;
  std::vector<NcclConfig> nccl_configs = ::pk::coll::nccl_configs();  // the NCCL baselines' communicators
  bool allow_multicast = false;
};

// What this process shares with every implementation: the group, the timing pieces, the
// symmetric buffers (sized for the largest point), NCCL's communicators and NVSHMEM.
class Context {
 public:
  Context(PeerGroup& g, const StudyConfig& cfg, uint64_t in_bytes, uint64_t out_bytes, uint64_t scratch_bytes);
  ~Context();
  PeerGroup& group;
  const StudyConfig& cfg;
  StatusBoard status;
  Gate gate;
  StreamPool streams;
  SymBuf in, out, scratch, sync;
  int sms = 0;  // multiprocessors per GPU (the fewest of any rank)
  NcclStatePtr nccl;  // built by the study when an NCCL baseline is selected
  // Built by the study right before its first NVSHMEM point, where NVSHMEM can run (mpirun, one
  // GPU per process); those points run last (coll_order.h: no other row is timed with NVSHMEM
  // in the process). Destroyed first (nvshmem_finalize before NCCL, the buffers and MPI).
  NvshmemStatePtr nvshmem;
  // Every local GPU's result of the after-timing check (device memory, allocated once).
  std::map<int, CheckResult*> check_results;

  cudaStream_t stream(int gpu) { return streams.get(gpu, 0); }
  // The signal table of `gpu` (flags symmetric, epochs local) with the run's timeout.
  SyncTable sync_table(int gpu);
  template <class T>
  CollParams<T> params(int gpu, uint64_t count) {
    CollParams<T> p{};
    p.in = in.table<T>(gpu);
    p.out = out.table<T>(gpu);
    p.scratch = scratch.table<T>(gpu);
    p.sync = sync_table(gpu);
    p.count = count;
    return p;
  }
};

class Impl {
 public:
  virtual ~Impl() = default;
  virtual std::string name() const = 0;    // e.g. "two_shot_push", "nccl"
  virtual std::string family() const = 0;  // "pk", "nccl", "nccl_sym", "nvshmem", "multicast"
  virtual bool baseline() const { return false; }
  // Its kernel issues TMA / bulk-copy instructions (capability gating asks this, not the name).
  virtual bool uses_tma() const { return false; }
  virtual bool supports(int layout) const = 0;
  // false: no point is registered (e.g. the LL protocol above its size range).
  virtual bool applies(const Problem&) const { return true; }
  virtual uint64_t scratch_bytes(const Problem&) const { return 0; }
  // "" when it can run here, else the reason (a skipped row). Called on every rank.
  virtual std::string unavailable(const Problem&, Context&) const { return ""; }
  // Per-point setup, every rank in the same order; may throw.
  virtual void prepare(const Problem& p, Context& ctx) = 0;
  // This GPU's input and output as the implementation uses them (filled and checked here).
  virtual void* input(int gpu) = 0;
  virtual void* output(int gpu) = 0;
  // One collective on `stream` of `gpu` (the current device is gpu's, where needs_current_device()).
  virtual void enqueue(int gpu, cudaStream_t stream) = 0;
  virtual bool needs_current_device() const { return true; }
  // Around the per-GPU enqueues of one collective (NCCL: a group when a process drives
  // several GPUs).
  virtual void group_begin() {}
  virtual void group_end() {}
  // CUDA calls one eager collective queues (NCCL: several): what waits behind the gate.
  virtual int enqueues_per_op() const { return 1; }
  // Launch shape or library version, for the CSV.
  virtual std::string config() const { return ""; }
  // The nccl_config column (NcclConfig::name) of an NCCL baseline; "" for the others.
  virtual std::string nccl_config() const { return ""; }
  // nccl-tests' per-iteration buffer offset (startColl's shift: iteration i uses window
  // i % steps of buffers sized for the largest point, so no iteration re-reads the last
  // one's data from L2). Used by the nccl-tests method under --nccltests-shift; only NCCL's
  // plain layouts have it.
  virtual bool shifts() const { return false; }
  virtual void set_iteration(int) {}
  // Launch knobs (coll_problem.h). Our kernels take them; the baselines pick their own grids
  // and take none. knob_refusal: "" when this implementation's kernel can launch with `k`
  // (before any GPU is looked at; a grid that cannot be resident on a rank's SMs is found in
  // prepare() and skips the point), else why not. with_knobs: a copy launching with `k`.
  virtual std::string knob_refusal(const LaunchKnobs&) const { return "takes no launch knobs (picks its own grid)"; }
  virtual std::shared_ptr<Impl> with_knobs(const LaunchKnobs&) const { return nullptr; }
  virtual LaunchKnobs knobs() const { return {}; }
  // The point name's tag after the implementation's name ("" for auto knobs: the names of
  // runs before the knobs stay as they were).
  virtual std::string tag() const { return ""; }
  // After prepare(): the row's columns this implementation fills beyond config() (our
  // kernels: sms, threads, knobs).
  virtual void describe(Row&) const {}
  // What runs: itself, or for `tuned` the implementation its table answered (the study
  // sizes buffers and sets up NCCL / NVSHMEM by it).
  virtual const Impl& underlying() const { return *this; }
};

using ImplList = std::vector<std::shared_ptr<Impl>>;
// One implementation of class I per element of `items`, each made from it.
template <class I, class Items>
ImplList impls_of(const Items& items) {
  ImplList v;
  for (const auto& x : items) v.push_back(std::make_shared<I>(x));
  return v;
}

// The implementations of ours each line of coll_list.h brings (its IMPLS function).
ImplList all_reduce_impls();  // the all-reduce algorithms (ar_list.h)
// push (all-gather, reduce-scatter, all-to-all and the tensor-dimension ones), then ll and
// push_tma (segments_ll.cu, segments_tma.cu: the plain layouts, small and large messages).
ImplList segment_impls();
ImplList segment_ll_impls();
ImplList segment_tma_impls();
ImplList no_impls();  // a line served by implementations an earlier line brought
ImplList nccl_impls();     // one per NCCL configuration (coll_problem.h; empty without NCCL)
ImplList nvshmem_impls();  // NVSHMEM's on-stream collectives (coll_nvshmem.h; empty without NVSHMEM)
ImplList multicast_impls();
// Every implementation of ours (family "pk": each coll_list.h line's IMPLS, in its order) and
// every baseline, in registration order: the study and the GPU tests take these lists, so a
// new file is registered in one place.
ImplList our_impls();
ImplList baseline_impls();
// `tuned` at one point (coll_tuned.cu): the configuration `tuner` answers for p in launch
// mode m (Tuner::choose_collective, as a user's program asks it), run as the implementation
// of `registry` it names with the sms and threads it names. A refused answer, an
// implementation not in `registry` or knobs it refuses: every row of the point is skipped
// with that reason. `table` names the table in the rows.
std::shared_ptr<Impl> tuned_impl(const pkbench::tuning::Tuner& tuner, const std::string& table, const Problem& p,
                                 LaunchMode m, const ImplList& registry);

// Our kernels: input and output in the symmetric buffers, typed parameters per local GPU.
class PkImpl : public Impl {
 public:
  std::string family() const override { return "pk"; }
  void* input(int gpu) override { return ctx_->in.local(gpu); }
  void* output(int gpu) override { return ctx_->out.local(gpu); }
  std::string config() const override;
  std::string knob_refusal(const LaunchKnobs& k) const override;
  LaunchKnobs knobs() const override { return knobs_; }
  std::string tag() const override;
  void describe(Row& row) const override;

 protected:
  // Threads per block the kernel can launch with: [lowest, its __launch_bounds__].
  virtual std::pair<int, int> thread_range() const = 0;
  // threads_ and blocks_ for `kernel` from the knobs: the knob where set, else
  // `auto_threads` and auto_blocks(most), most = the blocks resident at once on the rank's
  // SMs (never more: spin-waiting blocks must all be resident). An explicit sms above `most`
  // skips the point (SkipPoint, the reason named).
  void set_grid(Context& ctx, const void* kernel, int auto_threads, size_t smem,
                const std::function<int(int most)>& auto_blocks);
  LaunchKnobs knobs_;
  // Parameters of every local GPU for this problem (rounds: CollParams::rounds).
  void build_params(Context& ctx, const Problem& p, uint64_t count, uint64_t slot_elems, int handshake,
                    int rounds = 1);
  // `kernel` on the grid set_grid chose, with `args` (what <<<>>> passes). A PDL twin
  // (pdl_twin(): its name gets "_pdl") launches it with programmatic dependent launch
  // (cudaLaunchAttributeProgrammaticStreamSerialization): its blocks may start while the kernel
  // ahead of it ends, and wait in begin_epoch (coll_sync.cuh) for that kernel to complete.
  void launch_grid(const void* kernel, void** args, cudaStream_t s) const;
  std::string pdl_suffix() const { return pdl_ ? "_pdl" : ""; }
  bool pdl_ = false;
  int rounds_ = 1;  // what build_params gave the kernels (config() names it when above one)
  Context* ctx_ = nullptr;
  Problem p_;
  int blocks_ = 1, threads_ = 0;
  size_t smem_ = 0;
  std::map<int, CollParams<__nv_bfloat16>> pb_;
  std::map<int, CollParams<float>> pf_;
};

// An implementation class of ours with the knobs' copy (with_knobs) written once.
template <class D>
class PkImplOf : public PkImpl {
 public:
  std::shared_ptr<Impl> with_knobs(const LaunchKnobs& k) const override {
    auto c = std::make_shared<D>(static_cast<const D&>(*this));
    c->knobs_ = k;
    return c;
  }
  // Its twin launched with programmatic dependent launch (PkImpl::launch_grid), named name() + "_pdl".
  std::shared_ptr<Impl> pdl_twin() const {
    auto c = std::make_shared<D>(static_cast<const D&>(*this));
    c->pdl_ = true;
    return c;
  }
};

// Our kernels' common launch bookkeeping: grid size from the bytes a block should move,
// capped so that every block is resident at once (spin-waiting blocks must be).
int resident_blocks(const void* kernel, int threads, size_t smem, int sms);
int grid_for(uint64_t bytes, uint64_t bytes_per_block, int max_blocks);

// Fills `dst` (elems of t) with rank `rank`'s input pattern; poisons with NaN.
void fill_input(void* dst, uint64_t elems, DType t, uint64_t seed, int rank, cudaStream_t s);
void poison(void* dst, uint64_t bytes, cudaStream_t s);
// Queues the check of one rank's output against the reference on `s` into `res` (device
// memory, reset first on `s`): every rank's check is queued before any is waited for, so
// the GPUs (a virtual rank: its own SMs) check at once.
void launch_check(const void* out, const RefSpec& spec, DType t, CheckResult* res, cudaStream_t s);

struct PointSpec {
  Problem problem;
  LaunchMode mode = LaunchMode::eager;
  std::shared_ptr<Impl> impl;
  std::string name() const;  // collective/impl/dtype/bytes/mode: the benchmark's name
};

// Collectives per timed sample at `bytes`, the same for every implementation: up to `most`,
// fewer for large messages so that a sample stays near 256 MiB of traffic per rank.
int ops_per_sample(uint64_t bytes, int most);

class Runner {
 public:
  Runner(Context& ctx, PointResults& results) : ctx_(ctx), results_(results) {}
  void run(benchmark::State& state, const PointSpec& ps);
  // One point: fills `row`; throws SkipPoint, or an error (a wrong result included). The
  // GPU tests call it directly.
  void measure(const PointSpec& ps, Row& row);

 private:
  Context& ctx_;
  PointResults& results_;
};

}  // namespace pk::coll
