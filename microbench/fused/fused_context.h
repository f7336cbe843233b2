#pragma once
// The fused study's common harness: what every operator file plugs into.
//   Context  the group, streams, gate, status words, NCCL communicators; the symmetric
//            buffers (A, partial C, output, signals) sized once for the largest point; the
//            inputs and references of the current (operator, shape) on every local GPU.
//   Impl     one schedule of one operator at one point: enqueue() queues one operation on
//            every GPU this process drives (the harness times it with pk::FlowTimer).
// Included by .cu files only (it hands FusedParams around).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "microbench/gemm/autotune_cache.h"
#include "microbench/gemm/gemm_data.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/op_case.h"
#include "microbench/harness/study_context.h"
#include "microbench/harness/timing.h"
#include "microbench/fused/fused_kernels.h"
#include "microbench/fused/fused_nccl.h"
#include "microbench/fused/fused_problem.h"

namespace pk::gemm {
class CublasLtGemm;
}

namespace pk::fused {

using bf16 = __nv_bfloat16;

struct FusedOptions {
  TimingOptions timing;  // timing.warmup_ms: the full per-point warm-up (WarmupPolicy)
  double study_warmup_ms = 300;
  double short_warmup_ms = 2;
  bool warmup_every_point = false;
  int group_m = 0;  // 0: each kernel's default (fused_kernel_group_m)
  gemm::AutotuneEffort cublas_autotune;  // the cuBLASLt GEMMs' autotuning
  WarmupPolicy warmup_policy() const {
    WarmupPolicy w;
    w.full_ms = timing.warmup_ms;
    w.short_ms = short_warmup_ms;
    w.every_point = warmup_every_point;
    w.gap_ms = timing.gap_ms;
    return w;
  }
};

// The band height of the grouped order inside a shard: the GEMM's default, divided by the GPU
// count for the interleaved orders (their tiles in flight come from every shard at once).
int fused_group_m(KernelKind k, int world, int requested);

// One kernel instance's zeroed region of the symmetric signal buffer.
struct SyncRegion {
  int64_t offset_ints = 0;
  int64_t ints = 0;
};

// One GPU's set of inputs of the current (operator, shape) and what derives from it (cudaMalloc;
// replaced per shape). A and B themselves are refilled in place from the set's seeds whenever
// the set changes (the kernels' parameters hold their addresses); what derives from them is
// made once per shape and set, and reused by every point of the shape.
struct InputSet {
  bf16* a_ref = nullptr;        // AG: M x K, the gathered A (generated here from every GPU's seed)
  bf16* partial_ref = nullptr;  // RS/AR: M x N, cuBLASLt's A_r * B_r^T (the GEMM components' reference)
  // The whole operator's reference, made when a check first reads it (Context::ensure_reference):
  // AG and AR M x N; RS the M/w x N rows of this GPU's shard (all its output holds).
  bf16* ref = nullptr;
  double ref_rms = 0;
};
// The timed inputs (generation 0: bitwise the same for every schedule compared) and the final
// checks' (a generation no timed run of the shape used).
enum InputSetId { kTimedInputs = 0, kCheckInputs = 1 };

// Per local GPU: B of the current set, and both sets.
struct LocalData {
  bf16* b = nullptr;  // N x K, this GPU's
  InputSet sets[2];
};

// Where a point's result is and what it must equal (on one GPU).
struct Expectation {
  const void* out;
  const void* ref;
  uint64_t elems;
  double elem_tol;
  std::string what;
};

class Context : public StudyContext {
 public:
  // Collective: symmetric buffers sized for every point of the run.
  Context(PeerGroup& g, const FusedOptions& o, const std::vector<Point>& points);
  ~Context();

  const Topology& topo;
  FusedOptions opt;
  NcclComms nccl;

  int world() const { return group.size(); }
  const GpuInfo& gpu(int g) const { return topo.gpus.at(g); }
  Deadline deadline(int g) { return status.deadline(g, opt.timing.timeout_ms); }

  // Collective: the timed inputs of (operator, shape) in A and B, and what the points read from
  // them (the gathered A, the partial references); made for a new (operator, shape), refilled
  // after the final checks' inputs, nothing when they are in place.
  void ensure_shape(Op op, const Shape& s);
  // Collective: the final checks' inputs in place of the timed ones (an operation that wrote
  // nothing after its warm-up, or wrote a stale result of the timed inputs, cannot match). One
  // generation per (operator, shape), never used before, its references made once and reused
  // by every point of the shape: each point's outputs are re-poisoned before its final run
  // (prepare_point), so no point can pass on what an earlier one left. The next ensure_shape
  // restores the timed inputs.
  void fresh_inputs();
  // Collective: the current set's reference of the whole operator (cuBLASLt, checked against
  // fp64 host dot products), made once per (operator, shape) and set; nothing when point `p`'s
  // expectation does not read it (the components'). Throws when the reference fails.
  void ensure_reference(const Point& p);
  Op op() const { return op_; }
  const Shape& shape() const { return shape_; }
  LocalData& data(int g) { return data_.at(g); }

  // The symmetric buffers as seen from GPU g (this process drives it).
  bf16* a(int g) const { return reinterpret_cast<bf16*>(a_.local(g)); }
  bf16* partial(int g) const { return reinterpret_cast<bf16*>(partial_.local(g)); }
  bf16* out(int g) const { return reinterpret_cast<bf16*>(out_.local(g)); }
  PeerTable<bf16> a_table(int g) const { return a_.table<bf16>(g); }
  PeerTable<bf16> partial_table(int g) const { return partial_.table<bf16>(g); }
  PeerTable<bf16> out_table(int g) const { return out_.table<bf16>(g); }

  // Collective: a fresh region of `flags` flag words (plus epochs, slots, counter), zeroed on
  // every GPU before any kernel can use it.
  SyncRegion new_sync(int64_t flags);
  FusedSync sync_table(const SyncRegion& r, int g) const;

  // Collective, before a point: RS/AR outputs poisoned; the GEMM components' input ready
  // (the gathered A for AG); the collective components' input ready (cuBLASLt's partials);
  // the peers' rows of A poisoned for every AG schedule that gathers them.
  void prepare_point(const Point& p);
  Expectation expectation(const Point& p, int g) const;

  // GPU g's comparison room (g current at the first call), reused by every check.
  gemm::PendingComparison& comparison(int g);

  // Synchronises every local GPU (throws the first CUDA error); unlike StudyContext::sync_local,
  // which it hides, it leaves the status words to the caller.
  void sync_local();

  // When an operation of a point, or GEMM work of its shape, last ran to completion
  // (run_untimed, the timed samples, a reference, cuBLASLt's autotuning, a final check's
  // comparison): the warm-up policy's idle time (WarmupPolicy). Infinite before the first.
  // Noted when the GPU work is seen complete, before any host work that follows it (the
  // references' fp64 host check): the GPU idles during that.
  void note_operation() { last_operation_ = std::chrono::steady_clock::now(); }
  double ms_since_operation() const;

 private:
  void release_shape();
  void use_set(InputSetId set);  // collective
  void make_set(int g, InputSetId set);  // GPU g's a_ref / partial_ref (A and B hold the set's values), queued
  struct RefWork;
  void queue_reference(int g, RefWork& w);  // GPU g's reference of the current set, queued
  void check_reference(int g, RefWork& w);  // ... once done: its fp64 host check
  // The cuBLASLt GEMM of the references and the study warm-up on GPU g (current): the
  // heuristic's first algorithm, never autotuned (a reference needs a correct result, not the
  // fastest). Made once per problem and GPU of the shape: creating one allocates a workspace,
  // and destroying one frees it, which waits for the whole device (it would serialise the
  // GPUs' reference GEMMs).
  gemm::CublasLtGemm& ref_gemm(int g, int rows, int n, int k);
  void study_warm_up();
  bool reads_reference(const Point& p) const;
  uint64_t generation(InputSetId set) const { return set == kTimedInputs ? 0 : check_generation_; }
  SymBuf a_, partial_, out_, sync_;
  int64_t sync_next_ = 0;
  Op op_ = Op::gemm_rs;
  Shape shape_;
  bool have_shape_ = false;
  bool warmed_up_ = false;
  int set_ = -1;                              // the InputSetId whose values A and B hold (-1: none)
  bool set_made_[2] = {}, ref_made_[2] = {};  // per InputSetId, for the current shape
  bool ref_reported_ = false;                 // the shape's reference line printed
  uint64_t check_generation_ = 0;             // the current shape's final-check generation
  uint64_t generations_ = 0;                  // check generations handed out
  std::map<int, LocalData> data_;
  std::map<std::tuple<int, int, int, int>, std::unique_ptr<gemm::CublasLtGemm>> ref_gemms_;  // (gpu, rows, n, k)
  std::map<int, std::unique_ptr<gemm::PendingComparison>> compares_;  // per local GPU, made at its first check
  std::optional<std::chrono::steady_clock::time_point> last_operation_;
};

// One schedule of one operator at one point.
// Each GPU's operation goes on ctx.stream(g).
class Impl : public OpCase<Context> {
 public:
  explicit Impl(Context& c) : OpCase(c) {}
  // What the row reports.
  int compute_sms = 0;
  int comm_blocks = 0;
  int group_m = 0;
  std::string tile_order;
  std::string algo;
};

// A sequence of steps queued on each GPU's stream in order; a step marked `nccl` is issued
// for all local GPUs inside one NCCL group (one process driving several GPUs needs it).
class StepsImpl : public Impl {
 public:
  struct Step {
    bool nccl = false;
    std::function<void(int gpu, cudaStream_t s)> fn;
  };
  using Impl::Impl;
  void add(bool nccl, std::function<void(int, cudaStream_t)> fn) { steps_.push_back({nccl, std::move(fn)}); }
  void enqueue() override;
  int enqueues_per_op() const override { return static_cast<int>(steps_.size() * ctx.local_gpus().size()); }

 private:
  std::vector<Step> steps_;
};

// The GEMMs the baselines and components run: this suite's (every SM) or cuBLASLt (an SM
// target, 0 = none), one per local GPU, C[rows, n] = A[rows, k] * B[n, k]^T at any row offset.
class GemmRunners {
 public:
  GemmRunners(Context& c, bool cublas, int rows, int n, int k, int sm_target = 0);
  ~GemmRunners();
  void run(int g, const bf16* a, const bf16* b, bf16* c, cudaStream_t s);
  // cuBLASLt at its best, as the GEMM study runs it: on every local GPU the fastest of its
  // heuristic's top candidates on that GPU's operands (a, b, c) = operands(g), timed here at
  // preparation, outside any gate (this also loads the kernels), with FusedOptions::cublas_autotune's
  // effort. Timed once per problem, GPU, SM share and effort in the process
  // (gemm::autotune_cache): later points, and virtual ranks after
  // the first, take that choice and run it once. Nothing for this suite's GEMM.
  struct Operands {
    const bf16* a;
    const bf16* b;
    bf16* c;
  };
  void tune(const std::function<Operands(int g)>& operands);
  const std::string& algo() const { return algo_; }
  int sms() const { return sms_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string algo_;
  int sms_ = 0;
};

// The pieces the schedules (schedules/*.cu) build on.
// The parameters of kernel k for GPU g; blocks [0, compute_blocks) compute, later ones communicate.
FusedParams fused_params(Context& c, int g, KernelKind k, const Point& p, const SyncRegion& sync, int compute_blocks);
StandaloneParams standalone_params(Context& c, int g, CollKind kind, const SyncRegion& sync);
// The SMs a fused point gives the GEMM and its communicator; SkipPoint when they do not fit.
std::pair<int, int> sm_split(Context& c, const Point& p);

// Collective: kernel `kind` made ready (one block per SM) on every local GPU, and its parameters.
std::map<int, FusedParams> prepare_fused(Context& c, const Point& p, KernelKind kind, const SyncRegion& sync,
                                         int compute_blocks, int comm_blocks);
// Signal words a fused kernel of operator `op` flags its tiles with: one per tile row of A
// (all-gather), one per (unit, source GPU) of C (reductions).
int64_t flag_words(Op op, const Shape& s);
// How a fused schedule runs its kernel.
struct KernelPlan {
  KernelKind kernel;
  int64_t flags = 0;           // signal words of its region (flag_words(), or 0: none)
  bool zero_output = false;    // the output zeroed before the kernel, in the timed operation (reduce-adds)
  std::string tile_order;      // the row's tile_order
  std::optional<int> order_first;  // the interleaved order's first shard (FusedParams); unset: fused_params()'s
};
// A fused kernel on the split sm_split() gives, with a fresh signal region.
std::unique_ptr<Impl> make_fused(const Point& p, Context& c, const KernelPlan& plan);

// The GEMM and the collective of the operator one after the other on one stream (the
// all-gather first, reductions after), either of them alone: the components and the
// non-overlapped baselines.
enum class GemmBy { none, pk, cublas };
enum class CollBy { none, pk, nccl };
std::unique_ptr<Impl> make_in_sequence(const Point& p, Context& c, GemmBy gemm, CollBy coll);

// Any point's implementation: its schedule's factory (schedule_list.h; a name not listed is
// an ArgError naming --schedules), after the checks its declaration asks for (NCCL built,
// every GPU reaching every other's memory). A tuned point's is its table's answer
// (point_run: prepare and verify that point), and a refused answer throws SkipPoint with the
// table's reason.
std::unique_ptr<Impl> make_impl(const Point& p, Context& c);

// Collective: `ops` operations back to back (no gate, untimed), then every local GPU
// synchronised and its status words checked (DeviceFailure names a timed-out wait).
void run_untimed(Context& c, Impl& impl, int ops);
// Collective: every local GPU's result against its expectation (Context::expectation); the
// worst comparison over every GPU of every rank, the same on every rank.
gemm::Comparison verify_point(Context& c, const Point& p);
// Collective, after the timed samples: the final verified run of the exact timed
// configuration. New inputs (Context::fresh_inputs), outputs re-poisoned (prepare_point),
// one operation of `impl`, then verify_point. Checking only what the timed runs left behind
// would pass an operation that wrote the right answer during warm-up and nothing afterwards.
gemm::Comparison verify_fresh_run(Context& c, Impl& impl, const Point& p);

// The collective of the operator alone, as NCCL or this suite runs it (the components and
// the non-overlapped baselines).
void enqueue_nccl_collective(Context& c, int g, int max_ctas, cudaStream_t s);
void enqueue_pk_collective(Context& c, int g, const SyncRegion& sync, cudaStream_t s);

}  // namespace pk::fused
