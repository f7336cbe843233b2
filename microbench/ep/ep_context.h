#pragma once
// The expert-parallel study's common harness: the group, the timing pieces, every buffer of
// every rank sized once for the largest point of the run (symmetric ones through the
// PeerGroup, the rest per rank), and the current point's routing: every rank's, drawn on the
// host from the seed (ep_problem.h), uploaded to this process's GPUs, with the traffic it
// implies (what a correct dispatch must produce). Included by the study's .cu and .cpp files.
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/ep/ep_check.cuh"
#include "kernels/ep/ep_sync.cuh"
#include "kernels/ep/ep_types.cuh"
#include "microbench/ep/ep_problem.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/study_context.h"
#include "microbench/harness/timing.h"

namespace pk::ep {

struct EpOptions {
  EpShape shape;          // ranks: the group's
  RouterOptions router;
  TimingOptions timing;
  uint64_t data_seed = 0xDA7A5EEDull;
};

// The kernel instances that keep an epoch (ep_sync.cuh), one pair of ints each.
enum class Instance { ht_count, ll_dispatch, ll_combine, ht_combine, count };

// One rank's own buffers (this process drives the rank). Bytes as the kernels see them.
struct RankBuffers {
  uint16_t* x = nullptr;        // [Tmax][H]
  int32_t* topk = nullptr;      // [Tmax][K]
  float* w = nullptr;           // [Tmax][K]
  int32_t* topk_all = nullptr;  // [N][Tmax][K] every rank's routing (the checks)
  uint16_t* recv = nullptr;     // [rows_cap][H] per-expert layout
  int32_t* row_src = nullptr;   // [rows_cap]
  HandleEntry* handle = nullptr;  // [N][Tmax]
  int* layout = nullptr;        // LayoutDims ints
  uint16_t* y = nullptr;        // [rows_cap][H] expert outputs (combine input)
  uint16_t* out = nullptr;      // [Tmax][H] combined tokens
  int* sync = nullptr;          // epochs, cursors (SyncInts)
  int2* send_list = nullptr;    // [Tmax * K]
  int* tile_flags = nullptr;    // [rows_cap / 128]
  uint16_t* weights = nullptr;  // [El][H_expert][H]
  uint16_t* c = nullptr;        // [rows_cap][H_expert]
  // NCCL baseline
  char* send_rows = nullptr;    // [N * Tmax][64 + 2H]
  char* recv_rows = nullptr;
  uint16_t* comb_send = nullptr;  // [N * Tmax][H]
  uint16_t* comb_recv = nullptr;
  int* nccl_ints = nullptr;     // send_counts, recv_counts [N][El + 1], send_off [N], slot_of [Tmax][N]
  // checks
  unsigned* seen = nullptr;     // [El][N][Tmax] bits
  CheckCounters* counters = nullptr;
  std::vector<void*> owned;
};

// Offsets (ints) into RankBuffers::sync.
struct SyncInts {
  int experts, ranks;
  int64_t epoch_at(Instance i) const { return 2 * static_cast<int64_t>(i); }
  int64_t dest_cursor_at() const { return 2 * static_cast<int64_t>(Instance::count); }
  int64_t expert_cursor_at() const { return dest_cursor_at() + ranks; }
  int64_t ll_cursors_at() const { return expert_cursor_at() + experts; }  // [2][El]
  int64_t ints() const { return ll_cursors_at() + 2 * int64_t(experts); }
};
// Offsets (ints) into RankBuffers::nccl_ints.
struct NcclInts {
  int experts, ranks, tokens;
  int64_t send_counts_at() const { return 0; }
  int64_t recv_counts_at() const { return int64_t(ranks) * (experts + 1); }
  int64_t send_off_at() const { return 2 * int64_t(ranks) * (experts + 1); }
  int64_t slot_of_at() const { return send_off_at() + ranks; }
  int64_t ints() const { return slot_of_at() + int64_t(tokens) * ranks; }
};

class Context : public StudyContext {
 public:
  // Collective: every buffer for every point of the run.
  Context(PeerGroup& g, const EpOptions& o, const std::vector<Point>& points);
  ~Context();

  EpOptions opt;
  EpShape shape;  // T: the current point's

  int ranks() const { return shape.ranks; }
  int local_experts() const { return shape.local_experts(); }
  int64_t vecs() const { return shape.hidden / 8; }
  Deadline deadline(int gpu) { return status.deadline(gpu, opt.timing.timeout_ms); }
  // The fewest SMs a rank has (a virtual rank's share): grids of spin-waiting kernels.
  int sm_budget() const { return sm_budget_; }
  int64_t rows_cap() const { return rows_cap_; }
  RankBuffers& at(int gpu) { return bufs_.at(gpu); }
  KernelEpoch epoch(int gpu, Instance i);
  int* dest_cursor(int gpu);
  int* expert_cursor(int gpu);
  int* ll_cursors(int gpu);
  EpLayout layout(int gpu) { return EpLayout::at(at(gpu).layout, LayoutDims{local_experts(), ranks()}); }
  NcclInts nccl_ints() const { return NcclInts{local_experts(), ranks(), shape.tokens}; }

  // Collective: the routing of (kind, T) drawn for every rank, this process's uploaded, x
  // filled with the timed seed. Nothing when it is the current one and the inputs are the timed ones.
  void use_point(RoutingKind kind, int tokens);
  const Traffic& traffic() const { return traffic_; }
  const Routing& routing(int rank) const { return routings_.at(rank); }
  RoutingKind routing_kind() const { return kind_; }
  // Rows per expert region of the low-latency layout at this point (its fixed maximum).
  int ll_cap() const { return static_cast<int>(align_rows(traffic_.max_expert_count)); }

  // Seeds: 0 is the timed inputs' generation; the final checks use fresh ones.
  uint64_t x_seed(uint64_t generation) const;
  uint64_t y_seed(uint64_t generation) const;
  uint64_t w_seed() const { return opt.data_seed ^ 0x3E16475ull; }
  // Collective: x of every local rank from `generation`'s seed.
  void fill_tokens(uint64_t generation);
  // Collective: the dispatch's outputs poisoned (rows, sources, handle, layout counts), and
  // the combine's output.
  void poison_outputs();
  // Collective: y from the current layout and row sources with `generation`'s seed.
  void fill_expert_outputs(uint64_t generation);
  // Collective: expert weights of every local rank (once, before the first GEMM point).
  void ensure_weights();

  // Symmetric buffers.
  SymBuf staging, headers, flags, counts, ll_landing, comb_landing, comb_flags, ll_comb_landing, hello;

  // NCCL, for the baseline (harness/nccl_comms.h; nothing in this header needs nccl.h).
  struct Nccl;
  Nccl* nccl() { return nccl_.get(); }
  // Collective: the communicators, once; "" when made, else why not (the points skip).
  std::string ensure_nccl();

 private:
  void allocate(const std::vector<Point>& points);
  std::map<int, RankBuffers> bufs_;
  int sm_budget_ = 0;
  int tmax_ = 0;
  int64_t rows_cap_ = 0;
  bool have_point_ = false, weights_ready_ = false;
  RoutingKind kind_ = RoutingKind::uniform;
  std::vector<Routing> routings_;
  Traffic traffic_;
  std::unique_ptr<Nccl> nccl_;
  std::string nccl_refusal_;
  bool nccl_tried_ = false;
};

// The fields the kernels' parameter structs share (those a struct has), for rank `gpu` at the
// current point: its routing, the shape, the rank, its buffers' inputs and output, the
// deadline.
template <class P>
void set_point_fields(Context& c, int gpu, P& p) {
  RankBuffers& b = c.at(gpu);
  p.topk = b.topk;
  p.tokens = c.shape.tokens;
  p.topk_k = c.shape.topk;
  p.ranks = c.ranks();
  p.self = gpu;
  p.deadline = c.deadline(gpu);
  if constexpr (requires { p.w; }) p.w = b.w;
  if constexpr (requires { p.x; }) p.x = reinterpret_cast<const uint4*>(b.x);
  if constexpr (requires { p.vecs; }) p.vecs = c.vecs();
  if constexpr (requires { p.local_experts; }) p.local_experts = c.local_experts();
  if constexpr (requires { p.experts; }) p.experts = c.shape.experts;
  if constexpr (requires { p.y; }) p.y = reinterpret_cast<const uint4*>(b.y);
  if constexpr (requires { p.out; }) p.out = reinterpret_cast<uint4*>(b.out);
  if constexpr (requires { p.handle; }) p.handle = b.handle;
  if constexpr (requires { p.slot_cap; }) p.slot_cap = c.shape.tokens;
}

}  // namespace pk::ep
