#include "microbench/ep/ep_context.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <set>

#include "kernels/ep/ht_count.cuh"
#include "microbench/ep/ep_nccl.h"
#include "microbench/harness/cuda_check.h"

namespace pk::ep {

namespace {

struct Needs {
  bool ll = false, ht = false, nccl = false, gemm = false, combine = false;
  int tmax = 1, ll_tmax = 0;
  int64_t rows = kRowAlign;
};

bool is_ht(const std::string& impl) { return impl == "ht" || impl == "ht_then_gemm" || impl == "overlap" || impl == "gemm_only"; }
bool is_nccl(const std::string& impl) { return impl == "nccl" || impl == "nccl_then_gemm"; }

Needs needs_of(const EpShape& shape, const RouterOptions& router, const std::vector<Point>& points) {
  Needs n;
  std::set<std::pair<int, int>> seen;
  for (const Point& p : points) {
    n.tmax = std::max(n.tmax, p.tokens);
    n.ll |= p.impl == "ll";
    n.ht |= is_ht(p.impl);
    n.nccl |= is_nccl(p.impl);
    n.gemm |= p.op == Op::dispatch_gemm;
    n.combine |= p.op == Op::dispatch_combine;
    if (p.impl == "ll") n.ll_tmax = std::max(n.ll_tmax, p.tokens);
  }
  for (const Point& p : points) {
    const auto key = std::make_pair(static_cast<int>(p.routing), p.tokens);
    const bool ll = p.impl == "ll";
    if (!seen.insert(std::make_pair(key.first * 2 + ll, key.second)).second) continue;
    EpShape s = shape;
    s.tokens = p.tokens;
    std::vector<Routing> all;
    for (int r = 0; r < s.ranks; ++r) all.push_back(make_routing(s, p.routing, router, r));
    const Traffic tr = traffic_of(s, all);
    n.rows = std::max(n.rows, ll ? int64_t(s.local_experts()) * align_rows(tr.max_expert_count) : tr.max_rows_packed());
  }
  n.rows = align_rows(n.rows);
  return n;
}

template <class T>
T* device_alloc(RankBuffers& b, uint64_t bytes) {
  void* p = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&p, std::max<uint64_t>(bytes, 256)));
  b.owned.push_back(p);
  return static_cast<T*>(p);
}

void zero_sym(PeerGroup& g, SymBuf& b) {
  for (int gpu : g.local_gpus()) {
    g.set_device(gpu);
    PK_CUDA_CHECK(cudaMemset(b.local(gpu), 0, b.bytes()));
  }
}

int blocks_for(int64_t n) { return static_cast<int>(std::clamp<int64_t>((n + 255) / 256, 1, 8192)); }

}  // namespace

Context::Context(PeerGroup& g, const EpOptions& o, const std::vector<Point>& points)
    : StudyContext(g), opt(o), shape(o.shape) {
  shape.ranks = g.size();
  EpShape s = shape;
  s.tokens = 1;  // T is each point's (set_point): the rest of the shape is checked here
  check_shape(s);
  sm_budget_ = min_sm_budget();
  allocate(points);
}

Context::~Context() {
  nccl_.reset();
  for (auto& [gpu, b] : bufs_) {
    group.set_device(gpu);
    cudaDeviceSynchronize();
    for (void* p : b.owned) cudaFree(p);
  }
}

void Context::allocate(const std::vector<Point>& points) {
  const Needs n = needs_of(shape, opt.router, points);
  const int N = ranks(), El = local_experts(), K = shape.topk, H = shape.hidden;
  const uint64_t tok = shape.token_bytes();
  tmax_ = n.tmax;
  rows_cap_ = n.rows;
  auto sym = [&](bool need, uint64_t bytes, const char* what) {
    return need ? group.alloc(std::max<uint64_t>(bytes, 256), what) : SymBuf();
  };
  const uint64_t slots = uint64_t(N) * tmax_;
  staging = sym(n.ht, slots * tok, "ep staging");
  headers = sym(n.ht, slots * sizeof(TokenHeader), "ep headers");
  flags = sym(n.ht, slots * 4, "ep slot flags");
  counts = sym(n.ht, 2ull * N * count_lines(El) * LlSlot::kLineBytes, "ep count matrix");
  comb_landing = sym(n.ht && n.combine, 2 * slots * tok, "ep combine landing");
  comb_flags = sym(n.ht && n.combine, uint64_t(kEpMaxBlocks) * N * 4, "ep combine flags");
  ll_landing = sym(n.ll, 2ull * N * n.ll_tmax * LlSlot::bytes(H), "ep LL landing");
  ll_comb_landing = sym(n.ll, 2ull * N * n.ll_tmax * LlSlot::data_lines(H) * LlSlot::kLineBytes, "ep LL combine landing");
  hello = sym(n.ll, 2ull * N * LlSlot::kLineBytes, "ep LL hello");
  collectively(group.comm(), [&] {
    for (int gpu : local_gpus()) {
      group.set_device(gpu);
      status.on(gpu);
      RankBuffers& b = bufs_[gpu];
      b.x = device_alloc<uint16_t>(b, uint64_t(tmax_) * tok);
      b.topk = device_alloc<int32_t>(b, uint64_t(tmax_) * K * 4);
      b.w = device_alloc<float>(b, uint64_t(tmax_) * K * 4);
      b.topk_all = device_alloc<int32_t>(b, slots * K * 4);
      b.recv = device_alloc<uint16_t>(b, uint64_t(rows_cap_) * tok);
      b.row_src = device_alloc<int32_t>(b, uint64_t(rows_cap_) * 4);
      b.handle = device_alloc<HandleEntry>(b, slots * sizeof(HandleEntry));
      b.layout = device_alloc<int>(b, uint64_t(LayoutDims{El, N}.ints()) * 4);
      b.out = device_alloc<uint16_t>(b, uint64_t(tmax_) * tok);
      const SyncInts si{El, N};
      b.sync = device_alloc<int>(b, uint64_t(si.ints()) * 4);
      PK_CUDA_CHECK(cudaMemset(b.sync, 0, uint64_t(si.ints()) * 4));
      b.send_list = device_alloc<int2>(b, uint64_t(tmax_) * K * sizeof(int2));
      b.tile_flags = device_alloc<int>(b, uint64_t(rows_cap_ / kRowAlign) * 4);
      if (n.combine) b.y = device_alloc<uint16_t>(b, uint64_t(rows_cap_) * tok);
      if (n.gemm) {
        b.weights = device_alloc<uint16_t>(b, uint64_t(El) * shape.h_expert * tok);
        b.c = device_alloc<uint16_t>(b, uint64_t(rows_cap_) * shape.h_expert * 2);
      }
      if (n.nccl && group.library_skip_reason("NCCL").empty()) {
        const uint64_t row = sizeof(TokenHeader) + tok;
        b.send_rows = device_alloc<char>(b, slots * row);
        b.recv_rows = device_alloc<char>(b, slots * row);
        if (n.combine) {
          b.comb_send = device_alloc<uint16_t>(b, slots * tok);
          b.comb_recv = device_alloc<uint16_t>(b, slots * tok);
        }
        b.nccl_ints = device_alloc<int>(b, uint64_t(NcclInts{El, N, tmax_}.ints()) * 4);
      }
      b.seen = device_alloc<unsigned>(b, (uint64_t(El) * N * tmax_ + 31) / 32 * 4);
      b.counters = device_alloc<CheckCounters>(b, sizeof(CheckCounters));
    }
    // Flags compare with epochs that start at 1: everything a flag lives in starts at zero.
    for (SymBuf* s : {&flags, &counts, &comb_flags, &ll_landing, &ll_comb_landing, &hello})
      if (s->bytes()) zero_sym(group, *s);
    sync_local();
  });
  group.barrier();
}

KernelEpoch Context::epoch(int gpu, Instance i) {
  int* p = at(gpu).sync + SyncInts{local_experts(), ranks()}.epoch_at(i);
  return KernelEpoch{p, p + 1};
}
int* Context::dest_cursor(int gpu) { return at(gpu).sync + SyncInts{local_experts(), ranks()}.dest_cursor_at(); }
int* Context::expert_cursor(int gpu) { return at(gpu).sync + SyncInts{local_experts(), ranks()}.expert_cursor_at(); }
int* Context::ll_cursors(int gpu) { return at(gpu).sync + SyncInts{local_experts(), ranks()}.ll_cursors_at(); }

uint64_t Context::x_seed(uint64_t generation) const {
  return mix64(opt.data_seed ^ (uint64_t(static_cast<int>(kind_)) << 48) ^ uint64_t(shape.tokens) ^ (generation << 32));
}
uint64_t Context::y_seed(uint64_t generation) const { return mix64(x_seed(generation) ^ 0x7E11ull); }

void Context::use_point(RoutingKind kind, int tokens) {
  if (have_point_ && kind == kind_ && tokens == shape.tokens) return;
  if (tokens > tmax_) throw std::logic_error("a point above the tokens the buffers were sized for");
  shape.tokens = tokens;
  kind_ = kind;
  routings_.clear();
  for (int r = 0; r < ranks(); ++r) routings_.push_back(make_routing(shape, kind, opt.router, r));
  traffic_ = traffic_of(shape, routings_);
  const int K = shape.topk;
  collectively(group.comm(), [&] {
    for (int gpu : local_gpus()) {
      group.set_device(gpu);
      RankBuffers& b = at(gpu);
      const Routing& mine = routings_.at(gpu);
      PK_CUDA_CHECK(cudaMemcpy(b.topk, mine.topk.data(), mine.topk.size() * 4, cudaMemcpyHostToDevice));
      PK_CUDA_CHECK(cudaMemcpy(b.w, mine.w.data(), mine.w.size() * 4, cudaMemcpyHostToDevice));
      for (int r = 0; r < ranks(); ++r)
        PK_CUDA_CHECK(cudaMemcpy(b.topk_all + int64_t(r) * tokens * K, routings_[r].topk.data(), routings_[r].topk.size() * 4,
                                 cudaMemcpyHostToDevice));
    }
  });
  have_point_ = true;
  fill_tokens(0);
}

void Context::fill_tokens(uint64_t generation) {
  on_local_gpus([&](int gpu) {
    const int64_t n = int64_t(shape.tokens) * shape.hidden;
    fill_tokens_kernel<<<blocks_for(n), 256, 0, stream(gpu)>>>(at(gpu).x, shape.tokens, shape.hidden, x_seed(generation), gpu);
    PK_CUDA_CHECK_LAUNCH();
  });
}

void Context::poison_outputs() {
  on_local_gpus([&](int gpu) {
    RankBuffers& b = at(gpu);
    cudaStream_t s = stream(gpu);
    const uint64_t slots = uint64_t(ranks()) * shape.tokens;
    PK_CUDA_CHECK(cudaMemsetAsync(b.recv, 0xFF, uint64_t(rows_cap_) * shape.token_bytes(), s));
    PK_CUDA_CHECK(cudaMemsetAsync(b.row_src, 0xFF, uint64_t(rows_cap_) * 4, s));
    PK_CUDA_CHECK(cudaMemsetAsync(b.handle, 0xFF, slots * sizeof(HandleEntry), s));
    // The layout's counts and regions: -1 until a dispatch writes them.
    PK_CUDA_CHECK(cudaMemsetAsync(b.layout, 0xFF, uint64_t(LayoutDims{local_experts(), ranks()}.ints()) * 4, s));
    PK_CUDA_CHECK(cudaMemsetAsync(b.out, 0xFF, uint64_t(shape.tokens) * shape.token_bytes(), s));
    if (b.c) PK_CUDA_CHECK(cudaMemsetAsync(b.c, 0xFF, uint64_t(rows_cap_) * shape.h_expert * 2, s));
  });
}

void Context::fill_expert_outputs(uint64_t generation) {
  on_local_gpus(
      [&](int gpu) {
        RankBuffers& b = at(gpu);
        if (!b.y) throw std::logic_error("no expert-output buffer (no dispatch_combine point was planned)");
        const dim3 grid(static_cast<unsigned>(std::min(1024, sm_budget() * 4)), static_cast<unsigned>(local_experts()));
        fill_outputs_kernel<<<grid, 256, 0, stream(gpu)>>>(b.y, layout(gpu), b.row_src, shape.hidden, y_seed(generation), gpu,
                                                            local_experts());
        PK_CUDA_CHECK_LAUNCH();
      },
      false);
}

void Context::ensure_weights() {
  if (weights_ready_) return;
  on_local_gpus(
      [&](int gpu) {
        RankBuffers& b = at(gpu);
        if (!b.weights) throw std::logic_error("no weights (no dispatch_gemm point was planned)");
        const int64_t n = int64_t(local_experts()) * shape.h_expert * shape.hidden;
        fill_weights_kernel<<<blocks_for(n), 256, 0, stream(gpu)>>>(b.weights, local_experts(), shape.h_expert, shape.hidden,
                                                                     w_seed(), gpu);
        PK_CUDA_CHECK_LAUNCH();
      },
      false);
  weights_ready_ = true;
}

}  // namespace pk::ep
