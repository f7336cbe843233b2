#pragma once
// The ring KV pass's harness: the group, the timing pieces, every buffer sized once for the
// largest point of the run, the schedules (seqpar_list.h) and the runner.
//   buffers   per rank, symmetric: kv = [own block | ring buffer 0 | ring buffer 1] and one pull
//             counter; local: Q (B H S, D) and the stand-in's output C (B H S, 512).
//   a pass    N steps; step i computes on the block of rank r - i: the own block at i = 0, ring
//             buffer i % 2 after; the pull of step i < N - 1 brings the block of r - i - 1 from
//             the left neighbour (its own block at i = 0, its ring buffer i % 2 after) into ring
//             buffer (i + 1) % 2. intra_sm computes on the owner's own block over the link.
//   counters  monotone: the pull of step i waits for both neighbours' counters to reach
//             base + i * blocks (the host counts the passes it queued, the same on every rank),
//             and zeroed at every point while every rank is idle.
//   a point   inputs of the timed seed, one untimed pass (a broken schedule fails before any
//             timing), the timed passes (pk::FlowTimer; a step is a pass over N), then a final
//             pass on fresh inputs into a poisoned C: the block each rank holds at the end bit
//             for bit against its source (rank r + 1's), and the stand-in's output of the last
//             step (Q_r times that block) against an exact host reference at sampled rows.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "microbench/harness/device_runtime.h"
#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/op_case.h"
#include "microbench/harness/study_point.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/study_context.h"
#include "microbench/harness/timing.h"
#include "microbench/seqpar/seqpar_problem.h"

namespace pk::seqpar {

struct RingOptions {
  RingShape shape;  // seq, heads: the point's; ranks: the group's
  TimingOptions timing;
  uint64_t data_seed = 0x5E9A11ull;
};

class Context : public StudyContext {
 public:
  // Collective: every buffer for every point of the run.
  Context(PeerGroup& g, const RingOptions& o, const std::vector<Point>& points);
  ~Context();

  RingOptions opt;
  RingShape shape;
  SymBuf kv, done;

  int ranks() const { return shape.ranks; }
  cudaStream_t side(int gpu) { return streams.get(gpu, 1); }
  Deadline deadline(int gpu) { return status.deadline(gpu, opt.timing.timeout_ms); }
  int sm_budget() const { return sm_budget_; }
  uint64_t cap() const { return cap_; }  // bytes of each third of kv
  uint16_t* q(int gpu) { return q_.at(gpu); }
  uint16_t* c(int gpu) { return c_.at(gpu); }
  // Rank `owner`'s own block / ring buffer j, as `gpu` (driven here) reaches it.
  char* own_block(int gpu, int owner) { return kv.at(gpu, owner); }
  char* ring_buffer(int gpu, int owner, int j) { return kv.at(gpu, owner) + (1 + j) * cap_; }
  // The pull counters' base of the next pass (the same on every rank) and its advance.
  int& base(int gpu) { return base_[gpu]; }

  // Collective: the point's shape, inputs of generation 0, counters zeroed.
  void use_point(const Point& p);
  uint64_t q_seed(uint64_t generation) const;
  uint64_t kv_seed(uint64_t generation, int rank) const;
  // Collective: Q and every local rank's own block from `generation`'s seeds.
  void fill(uint64_t generation);
  // Collective: C and the ring buffers poisoned.
  void poison();

  struct Nccl;
  Nccl* nccl() { return nccl_.get(); }
  // Collective: the communicators, once; "" when made, else why not (the points skip).
  std::string ensure_nccl();

 private:
  int sm_budget_ = 0;
  uint64_t cap_ = 0, q_cap_ = 0, c_cap_ = 0;
  std::map<int, uint16_t*> q_, c_;
  std::map<int, int> base_;
  std::unique_ptr<Nccl> nccl_;
  std::string nccl_refusal_;
  bool nccl_tried_ = false;
};

// One schedule at one point: its operation is one pass of the ring on every GPU this process drives.
using Impl = OpCase<Context>;
std::unique_ptr<Impl> make_impl(Context& c, const Point& p);
// The pull of step 0 on rank `gpu` (driven here) alone, on `blocks` blocks, waiting for the
// neighbours' counters to reach `target` (the timeout test: a target never reached).
void enqueue_pull(Context& c, int gpu, int target, int blocks);
std::string nccl_version();

// What the final pass's checks found, over every rank.
struct Checked {
  double wrong_kv = 0, wrong_out = 0, max_rel = 0;
  std::string first;
  bool ok() const { return wrong_kv == 0 && wrong_out == 0; }
};
Checked check_pass(Context& c, const Point& p, uint64_t generation);

class Runner : public StudyRunner<Runner, Context> {
 public:
  using StudyRunner::StudyRunner;
  static constexpr const char* kTimeColumn = "step_us_median";
  // One point into `row`; throws SkipPoint, or an error (a wrong result included, after the
  // row got its check columns). The GPU tests call it.
  void measure(const Point& p, Row& row);
  static Row describe(const Point& p, const RingShape& shape, int processes);
};

}  // namespace pk::seqpar
