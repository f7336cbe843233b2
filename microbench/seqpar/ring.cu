// The ring KV pass: context, schedules (seqpar_list.h), checks and runner (ring.h). The study's
// one instantiation of this suite's GEMM kernel (kernels/seqpar/ring_kv.cuh; CI compiles on 2
// cores) serves every schedule: alone, with communicator blocks (inter_sm), on a peer's block
// (intra_sm).
#include "microbench/seqpar/ring.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <cmath>
#include <functional>

#include "kernels/seqpar/ring_kv.cuh"
#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/nvml.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/tensor_map_gemm.h"
#include "microbench/harness/tidy_csv.h"

#ifdef PKBENCH_HAVE_NCCL
#include "microbench/harness/nccl_comms.h"
#endif

namespace pk::seqpar {

#ifdef PKBENCH_HAVE_NCCL
struct Context::Nccl {
  std::map<int, ncclComm_t> comms;
  ~Nccl() {
    for (auto& [gpu, c] : comms) ncclCommDestroy(c);
  }
};
std::string nccl_version() {
  int v = 0;
  ncclGetVersion(&v);
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}
std::string Context::ensure_nccl() {
  if (nccl_tried_) return nccl_refusal_;
  nccl_tried_ = true;
  nccl_refusal_ = group.library_skip_reason("NCCL");
  if (!nccl_refusal_.empty()) return nccl_refusal_;
  auto n = std::make_unique<Nccl>();
  n->comms = make_nccl_comms(group);
  nccl_ = std::move(n);
  return "";
}
#else
struct Context::Nccl {};
std::string nccl_version() { return ""; }
std::string Context::ensure_nccl() { return "this build has no NCCL"; }
#endif

namespace {

void* device_alloc(uint64_t bytes) {
  void* p = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&p, std::max<uint64_t>(bytes, 256)));
  return p;
}

__global__ void count_mismatch_kernel(const uint16_t* p, int64_t n, uint64_t seed, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    mine += p[i] != value_bits(seed, uint64_t(i));
  if (mine) atomicAdd(wrong, mine);
}

}  // namespace

Context::Context(PeerGroup& g, const RingOptions& o, const std::vector<Point>& points)
    : StudyContext(g), opt(o), shape(o.shape) {
  shape.ranks = g.size();
  sm_budget_ = min_sm_budget();
  for (const Point& p : points) {
    RingShape s = shape;
    s.seq = p.seq;
    s.heads = p.heads;
    check_shape(s);
    cap_ = std::max(cap_, s.block_bytes());
    q_cap_ = std::max(q_cap_, s.q_bytes());
    c_cap_ = std::max(c_cap_, s.c_bytes());
  }
  kv = group.alloc(3 * cap_, "seqpar kv blocks");
  done = group.alloc(256, "seqpar pull counters");
  on_local_gpus([&](int gpu) {
    status.on(gpu);
    q_[gpu] = static_cast<uint16_t*>(device_alloc(q_cap_));
    c_[gpu] = static_cast<uint16_t*>(device_alloc(c_cap_));
    PK_CUDA_CHECK(cudaMemset(done.local(gpu), 0, done.bytes()));
    base_[gpu] = 0;
  });
}

Context::~Context() {
  nccl_.reset();
  for (int gpu : local_gpus()) {
    group.set_device(gpu);
    cudaDeviceSynchronize();
    cudaFree(q_[gpu]);
    cudaFree(c_[gpu]);
  }
}

uint64_t Context::q_seed(uint64_t generation) const {
  return opt.data_seed ^ (uint64_t(shape.seq) << 20) ^ (uint64_t(shape.heads) << 44) ^ (generation << 56);
}
uint64_t Context::kv_seed(uint64_t generation, int rank) const {
  return value_hash(q_seed(generation) ^ (uint64_t(rank + 1) * 0x51ED27ull));
}

void Context::use_point(const Point& p) {
  shape.seq = p.seq;
  shape.heads = p.heads;
  check_shape(shape);
  collectively(group.comm(), [&] {
    sync_local();
    for (int gpu : local_gpus()) {
      group.set_device(gpu);
      PK_CUDA_CHECK(cudaMemset(done.local(gpu), 0, done.bytes()));
      base_[gpu] = 0;
    }
    sync_local();
  });
  group.barrier();
  fill(0);
}

void Context::fill(uint64_t generation) {
  on_local_gpus([&](int gpu) {
    const int blocks = std::max(1, sm_budget_) * 4;
    fill_values_kernel<<<blocks, 256, 0, stream(gpu)>>>(q(gpu), int64_t(shape.q_bytes() / 2), q_seed(generation));
    PK_CUDA_CHECK_LAUNCH();
    fill_values_kernel<<<blocks, 256, 0, stream(gpu)>>>(reinterpret_cast<uint16_t*>(kv.local(gpu)),
                                                        int64_t(shape.block_bytes() / 2), kv_seed(generation, gpu));
    PK_CUDA_CHECK_LAUNCH();
  });
}

void Context::poison() {
  on_local_gpus([&](int gpu) {
    PK_CUDA_CHECK(cudaMemsetAsync(c(gpu), 0xFF, shape.c_bytes(), stream(gpu)));
    PK_CUDA_CHECK(cudaMemsetAsync(kv.local(gpu) + cap_, 0xFF, 2 * cap_, stream(gpu)));
  });
}

// ---- schedules ---------------------------------------------------------------------------

namespace {

template <class F>
void for_each_gpu(Context& c, F&& fn) {
  for (int gpu : c.local_gpus()) {
    c.group.set_device(gpu);
    fn(gpu, c.stream(gpu));
  }
}

int left_of(const Context& c, int r) { return (r - 1 + c.ranks()) % c.ranks(); }
int right_of(const Context& c, int r) { return (r + 1) % c.ranks(); }

// The block rank `gpu` computes on in step i (staging schedules), and the pull of step i.
const char* current_block(Context& c, int gpu, int i) { return i == 0 ? c.own_block(gpu, gpu) : c.ring_buffer(gpu, gpu, i % 2); }
PullParams pull_params(Context& c, int gpu, int i, int blocks) {
  PullParams p{};
  const int left = left_of(c, gpu), right = right_of(c, gpu);
  p.src = reinterpret_cast<const uint4*>(i == 0 ? c.own_block(gpu, left) : c.ring_buffer(gpu, left, i % 2));
  p.dst = reinterpret_cast<uint4*>(c.ring_buffer(gpu, gpu, (i + 1) % 2));
  p.vecs = int64_t(c.shape.block_bytes() / 16);
  p.left_done = reinterpret_cast<const int*>(c.done.at(gpu, left));
  p.right_done = reinterpret_cast<const int*>(c.done.at(gpu, right));
  p.my_done = reinterpret_cast<int*>(c.done.local(gpu));
  p.target = c.base(gpu) + i * blocks;
  p.deadline = c.deadline(gpu);
  return p;
}

// The stand-in on `compute` blocks (+ `comm` communicator blocks) for rank `gpu`, B = `block`.
class StandIn {
 public:
  StandIn(Context& c, int compute, int comm) : ctx_(c), compute_(compute), comm_(comm) {
    if (compute < 1 || compute + comm > c.sm_budget())
      throw SkipPoint(std::to_string(compute) + " compute + " + std::to_string(comm) + " communication blocks on a rank of " +
                      std::to_string(c.sm_budget()) + " SMs (one block per SM)");
    for (int gpu : c.local_gpus()) {
      c.group.set_device(gpu);
      GpuInfo g = c.group.topology().gpus.at(gpu);
      g.sm_count = c.sm_budget();
      gemm::prepare_gemm_kernel<RingGemmOps>(compute + comm, g);
    }
  }
  RingGemmParams params(int gpu, const void* block, bool with_comm) const {
    using Cfg = RingGemmCfg;
    const RingShape& s = ctx_.shape;
    const int m = static_cast<int>(s.bh() * s.seq);
    RingGemmParams p{};
    static_cast<gemm::GemmParams&>(p) = gemm::make_gemm_params<Cfg>(ctx_.q(gpu), block, ctx_.c(gpu), m,
                                                                     static_cast<int>(s.bh() * 2 * s.seq), s.head_dim,
                                                                     compute_, 0, nullptr, ctx_.deadline(gpu));
    p.tmap_c = make_tensor_map_2d_bf16_sw128(ctx_.c(gpu), uint64_t(kStoredCols), uint64_t(m), uint64_t(kStoredCols) * 2,
                                             Cfg::EPI_COLS, Cfg::WG_M);
    p.heads = static_cast<int>(s.bh());
    p.s_tiles = s.seq / Cfg::BM;
    p.n_tiles = 2 * s.seq / Cfg::BN;
    p.seq = s.seq;
    (void)with_comm;
    return p;
  }
  void launch(const RingGemmParams& p, bool with_comm, cudaStream_t st) const {
    gemm::launch_gemm<RingGemmOps>(p, compute_ + (with_comm ? comm_ : 0), st);
  }
  int compute() const { return compute_; }
  int comm() const { return comm_; }

 private:
  Context& ctx_;
  int compute_, comm_;
};

void launch_pull(const PullParams& p, int blocks, cudaStream_t s) {
  ring_pull_kernel<<<blocks, 512, 0, s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

// The schedules that move nothing between launches (the blocks are where the stand-in reads
// them): the stand-in on every SM, one launch a step; the row's config column is `config`.
class ComputeEveryStep : public Impl {
 public:
  int enqueues_per_op() const override { return ctx.ranks(); }
  void describe(Row& row) const override {
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = config_;
  }

 protected:
  ComputeEveryStep(Context& c, const char* config) : Impl(c), g_(c, c.sm_budget(), 0), config_(config) {}
  StandIn g_;

 private:
  const char* config_;
};

class ComputeOnly final : public ComputeEveryStep {
 public:
  explicit ComputeOnly(Context& c)
      : ComputeEveryStep(c, "stand-in (Q K^T, Q V^T) 128x256x64, 4 stages, every SM, on the own block each step") {}
  void enqueue() override {
    for_each_gpu(ctx, [&](int gpu, cudaStream_t s) {
      const RingGemmParams p = g_.params(gpu, ctx.own_block(gpu, gpu), false);
      for (int i = 0; i < ctx.ranks(); ++i) g_.launch(p, false, s);
    });
  }
};

class CopyOnly final : public Impl {
 public:
  explicit CopyOnly(Context& c) : Impl(c), blocks_(c.sm_budget()) {}
  void enqueue() override {
    for_each_gpu(ctx, [&](int gpu, cudaStream_t s) {
      for (int i = 0; i + 1 < ctx.ranks(); ++i) launch_pull(pull_params(ctx, gpu, i, blocks_), blocks_, s);
      ctx.base(gpu) += (ctx.ranks() - 1) * blocks_;
    });
  }
  int enqueues_per_op() const override { return ctx.ranks() - 1; }
  void describe(Row& row) const override {
    row["sms"] = std::to_string(blocks_);
    row["config"] = "pull kernel on every SM (512 threads, 16-B loads from the neighbour), N - 1 steps";
  }

 private:
  int blocks_;
};

class Sequential final : public Impl {
 public:
  explicit Sequential(Context& c) : Impl(c), g_(c, c.sm_budget(), 0), blocks_(c.sm_budget()) {}
  void enqueue() override {
    for_each_gpu(ctx, [&](int gpu, cudaStream_t s) {
      for (int i = 0; i < ctx.ranks(); ++i) {
        g_.launch(g_.params(gpu, current_block(ctx, gpu, i), false), false, s);
        if (i + 1 < ctx.ranks()) launch_pull(pull_params(ctx, gpu, i, blocks_), blocks_, s);
      }
      ctx.base(gpu) += (ctx.ranks() - 1) * blocks_;
    });
  }
  int enqueues_per_op() const override { return 2 * ctx.ranks() - 1; }
  void describe(Row& row) const override {
    row["sms"] = std::to_string(blocks_);
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = "stand-in on every SM, then the pull on every SM, in stream order";
  }

 private:
  StandIn g_;
  int blocks_;
};

class InterSm final : public Impl {
 public:
  InterSm(Context& c, int comm) : Impl(c), g_(c, c.sm_budget() - comm, comm), last_(c, c.sm_budget(), 0) {}
  void enqueue() override {
    for_each_gpu(ctx, [&](int gpu, cudaStream_t s) {
      for (int i = 0; i < ctx.ranks(); ++i) {
        if (i + 1 < ctx.ranks()) {
          RingGemmParams p = g_.params(gpu, current_block(ctx, gpu, i), true);
          p.pull = pull_params(ctx, gpu, i, g_.comm());
          g_.launch(p, true, s);
        } else {  // the last step moves nothing: every SM computes
          last_.launch(last_.params(gpu, current_block(ctx, gpu, i), false), false, s);
        }
      }
      ctx.base(gpu) += (ctx.ranks() - 1) * g_.comm();
    });
  }
  int enqueues_per_op() const override { return ctx.ranks(); }
  void describe(Row& row) const override {
    row["sms"] = std::to_string(g_.comm());
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = "inter-SM: " + std::to_string(g_.comm()) + " communication blocks pull the next block into local HBM, " +
                    std::to_string(g_.compute()) + " blocks compute; the last step on every SM";
  }

 private:
  StandIn g_, last_;
};

class IntraSm final : public ComputeEveryStep {
 public:
  explicit IntraSm(Context& c)
      : ComputeEveryStep(c, "intra-SM: the stand-in's TMA loads of K/V read the owner's block directly (peer memory), every SM") {
    for (int gpu : c.local_gpus())
      for (int i = 0; i < c.ranks(); ++i)
        params_[gpu].push_back(g_.params(gpu, c.own_block(gpu, (gpu - i + c.ranks()) % c.ranks()), false));
  }
  void enqueue() override {
    for_each_gpu(ctx, [&](int gpu, cudaStream_t s) {
      for (const RingGemmParams& p : params_.at(gpu)) g_.launch(p, false, s);
    });
  }

 private:
  std::map<int, std::vector<RingGemmParams>> params_;
};

#ifdef PKBENCH_HAVE_NCCL
// xDiT's ring: the stand-in on the main stream; ncclSend of the block held / ncclRecv of the
// next on a side stream, events between them (the receive waits for the compute that last read
// its buffer; the next step's compute for the receive).
class NcclSide final : public Impl {
 public:
  explicit NcclSide(Context& c) : Impl(c), g_(c, c.sm_budget(), 0) {
    if (const std::string why = c.ensure_nccl(); !why.empty()) throw SkipPoint("NCCL: " + why);
    for (int gpu : c.local_gpus()) {
      c.group.set_device(gpu);
      for (cudaEvent_t* e : {&ev_[gpu].start, &ev_[gpu].comp, &ev_[gpu].recv})
        PK_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    }
  }
  ~NcclSide() override {
    for (auto& [gpu, e] : ev_) {
      ctx.group.set_device(gpu);
      cudaEventDestroy(e.start);
      cudaEventDestroy(e.comp);
      cudaEventDestroy(e.recv);
    }
  }
  void enqueue() override {
    const int n = ctx.ranks();
    const size_t count = ctx.shape.block_bytes() / 2;
    for (int i = 0; i < n; ++i) {
      for_each_gpu(ctx, [&](int gpu, cudaStream_t s) {
        Events& e = ev_.at(gpu);
        if (i == 0) {
          PK_CUDA_CHECK(cudaEventRecord(e.start, s));
          PK_CUDA_CHECK(cudaStreamWaitEvent(ctx.side(gpu), e.start, 0));
        } else {
          PK_CUDA_CHECK(cudaStreamWaitEvent(s, e.recv, 0));
          PK_CUDA_CHECK(cudaStreamWaitEvent(ctx.side(gpu), e.comp, 0));
        }
        g_.launch(g_.params(gpu, current_block(ctx, gpu, i), false), false, s);
        PK_CUDA_CHECK(cudaEventRecord(e.comp, s));
      });
      if (i + 1 == n) break;
      PK_NCCL_CHECK(ncclGroupStart());
      for (int gpu : ctx.local_gpus()) {
        ctx.group.set_device(gpu);
        ncclComm_t comm = ctx.nccl()->comms.at(gpu);
        PK_NCCL_CHECK(ncclSend(current_block(ctx, gpu, i), count, ncclBfloat16, right_of(ctx, gpu), comm, ctx.side(gpu)));
        PK_NCCL_CHECK(ncclRecv(ctx.ring_buffer(gpu, gpu, (i + 1) % 2), count, ncclBfloat16, left_of(ctx, gpu), comm,
                               ctx.side(gpu)));
      }
      PK_NCCL_CHECK(ncclGroupEnd());
      for (int gpu : ctx.local_gpus()) {
        ctx.group.set_device(gpu);
        PK_CUDA_CHECK(cudaEventRecord(ev_.at(gpu).recv, ctx.side(gpu)));
      }
    }
  }
  int enqueues_per_op() const override { return 3 * ctx.ranks(); }
  void describe(Row& row) const override {
    row["compute_sms"] = std::to_string(g_.compute());
    row["config"] = "NCCL " + nccl_version() + " send/recv on a side stream, the stand-in on every SM";
  }

 private:
  struct Events {
    cudaEvent_t start = nullptr, comp = nullptr, recv = nullptr;
  };
  StandIn g_;
  std::map<int, Events> ev_;
};
#endif

}  // namespace

void enqueue_pull(Context& c, int gpu, int target, int blocks) {
  c.group.set_device(gpu);
  PullParams p = pull_params(c, gpu, 0, blocks);
  p.target = target;
  launch_pull(p, blocks, c.stream(gpu));
}

std::unique_ptr<Impl> make_impl(Context& c, const Point& p) {
  if (p.impl == "compute_only") return std::make_unique<ComputeOnly>(c);
  if (p.impl == "copy_only") return std::make_unique<CopyOnly>(c);
  if (p.impl == "sequential") return std::make_unique<Sequential>(c);
  if (p.impl == "intra_sm") return std::make_unique<IntraSm>(c);
  if (p.impl == "inter_sm") {
    const int comm = p.sms ? p.sms : auto_sms(c.sm_budget());
    if (comm >= c.sm_budget())
      throw SkipPoint("sms=" + std::to_string(comm) + " leaves no SM of the rank's " + std::to_string(c.sm_budget()) +
                      " to the stand-in");
    return std::make_unique<InterSm>(c, comm);
  }
  if (p.impl == "nccl_side") {
#ifdef PKBENCH_HAVE_NCCL
    return std::make_unique<NcclSide>(c);
#else
    throw SkipPoint("this build has no NCCL");
#endif
  }
  throw ArgError("--impls: unknown implementation '" + p.impl + "'");
}

// ---- checks ------------------------------------------------------------------------------

Checked check_pass(Context& c, const Point& p, uint64_t generation) {
  const ImplInfo& info = impl_info(p.impl);
  const RingShape& s = c.shape;
  const int n = c.ranks();
  Checked chk;
  for (int gpu : c.local_gpus()) {
    c.group.set_device(gpu);
    // The block this rank computed on last: rank r + 1's (r's own where nothing moves).
    const int last = info.moves ? (gpu + 1) % n : gpu;
    // The block it holds: the last ring buffer (staging schedules), else its own, untouched.
    const bool staged = info.moves && p.impl != "intra_sm";
    const uint16_t* held = reinterpret_cast<const uint16_t*>(staged ? c.ring_buffer(gpu, gpu, (n - 1) % 2) : c.own_block(gpu, gpu));
    const int held_owner = staged ? last : gpu;
    unsigned long long* wrong = nullptr;
    PK_CUDA_CHECK(cudaMalloc(&wrong, sizeof(unsigned long long)));
    PK_CUDA_CHECK(cudaMemset(wrong, 0, sizeof(unsigned long long)));
    count_mismatch_kernel<<<std::max(1, c.sm_budget()) * 4, 256>>>(held, int64_t(s.block_bytes() / 2),
                                                                     c.kv_seed(generation, held_owner), wrong);
    PK_CUDA_CHECK_LAUNCH();
    unsigned long long w = 0;
    PK_CUDA_CHECK(cudaMemcpy(&w, wrong, sizeof(w), cudaMemcpyDeviceToHost));
    PK_CUDA_CHECK(cudaFree(wrong));
    chk.wrong_kv += double(w);
    if (w && chk.first.empty())
      chk.first = "rank " + std::to_string(gpu) + ": " + std::to_string(w) + " elements of the block it holds differ from rank " +
                  std::to_string(held_owner) + "'s";
    if (!info.computes) continue;
    // The stand-in's last step: C[h S + i][j] = sum_d Q[h S + i][d] * B_last[h][j < 256 ? K : V][j % 256][d],
    // at up to 64 rows of every head (all of them at small S), every stored column.
    const uint64_t qs = c.q_seed(generation), ks = c.kv_seed(generation, last);
    const int D = s.head_dim, S = s.seq;
    const int stride = std::max(1, S / 64);
    std::vector<uint16_t> row(kStoredCols);
    for (int64_t h = 0; h < s.bh(); h += std::max<int64_t>(1, s.bh() / 8))
      for (int i = (h * 7) % stride; i < S; i += stride) {
        const int64_t r = h * S + i;
        PK_CUDA_CHECK(cudaMemcpy(row.data(), c.c(gpu) + r * kStoredCols, kStoredCols * 2, cudaMemcpyDeviceToHost));
        for (int j = 0; j < kStoredCols; ++j) {
          const int kvsel = j < 256 ? 0 : 1, key = j % 256;
          double want = 0;
          for (int d = 0; d < D; ++d) {
            auto f = [](uint16_t b) {
              const uint32_t u = uint32_t(b) << 16;
              float v;
              std::memcpy(&v, &u, 4);
              return double(v);
            };
            want += f(value_bits(qs, uint64_t(r) * D + d)) *
                    f(value_bits(ks, ((uint64_t(h) * 2 + kvsel) * S + key) * D + d));
          }
          const uint32_t u = uint32_t(row[j]) << 16;
          float got;
          std::memcpy(&got, &u, 4);
          const double err = std::fabs(double(got) - want);
          const double rel = err / std::max(1.0, std::fabs(want));
          chk.max_rel = std::max(chk.max_rel, rel);
          if (!(err <= std::ldexp(std::fabs(want), -8) + 1e-6)) {
            if (chk.wrong_out++ == 0 && chk.first.empty())
              chk.first = "rank " + std::to_string(gpu) + " C[" + std::to_string(r) + "][" + std::to_string(j) + "] = " +
                          std::to_string(got) + ", want " + std::to_string(want);
          }
        }
      }
  }
  // Over every rank.
  Comm& comm = c.group.comm();
  std::vector<double> all(2 * size_t(comm.size()));
  const double mine[2] = {chk.wrong_kv, chk.wrong_out};
  comm.allgather(mine, all.data(), sizeof(mine));
  chk.wrong_kv = chk.wrong_out = 0;
  for (int r = 0; r < comm.size(); ++r) {
    chk.wrong_kv += all[2 * r];
    chk.wrong_out += all[2 * r + 1];
  }
  chk.max_rel = comm.max(chk.max_rel);
  chk.first = comm.first_error(chk.first);
  return chk;
}

// ---- runner ------------------------------------------------------------------------------

namespace {

// NVLink data received by every GPU of the group (KiB, NVML's counter); < 0 where any rank's GPU
// does not expose it. Collective.
double group_rx_kib(Context& c) {
  double mine = 0;
  for (int gpu : c.local_gpus()) {
    const auto v = nvml::nvlink_rx_kib(c.group.topology().gpus.at(gpu).pci_bus_id);
    if (!v) {
      mine = -1;
      break;
    }
    mine += double(*v);
  }
  Comm& comm = c.group.comm();
  std::vector<double> all(size_t(comm.size()));
  comm.allgather(&mine, all.data(), sizeof(mine));
  double sum = 0;
  for (double v : all) {
    if (v < 0) return -1;
    sum += v;
  }
  return sum;
}

}  // namespace

Row Runner::describe(const Point& p, const RingShape& shape, int processes) {
  const ImplInfo& info = impl_info(p.impl);
  return Row{{"study", "seqpar"},
             {"op", "ring_kv"},
             {"impl", p.impl},
             {"family", info.family},
             {"seq_per_rank", std::to_string(p.seq)},
             {"heads", std::to_string(p.heads)},
             {"batch", std::to_string(shape.batch)},
             {"head_dim", std::to_string(shape.head_dim)},
             {"processes", std::to_string(processes)},
             {"link_bytes_per_useful", fmt_num(link_bytes_per_useful(p.impl, p.seq))},
             {"link_bytes_basis", link_bytes_basis(p.impl)},
             {"l2_hit_rate", ""},
             {"verified", "no"}};
}

void Runner::measure(const Point& p, Row& row) {
  Context& c = ctx_;
  std::unique_ptr<Impl> impl;
  point_cost::within("setup", [&] {
    c.use_point(p);
    collectively(c.group.comm(), [&] { impl = make_impl(c, p); });
  });
  impl->describe(row);
  const int n = c.ranks();
  row["steps"] = std::to_string(n);
  row["block_bytes"] = std::to_string(c.shape.block_bytes());

  point_cost::within("first-run", [&] { untimed(c, [&] { impl->enqueue(); }); });
  const TimedOp t = time_case(*impl);

  // The final pass: fresh inputs, poisoned outputs and ring buffers, then the checks.
  const Checked chk = point_cost::within("verify", [&] {
    c.fill(1);
    c.poison();
    untimed(c, [&] { impl->enqueue(); });
    const Checked k = check_pass(c, p, 1);
    c.fill(0);
    return k;
  });
  row["wrong_kv"] = fmt_num(chk.wrong_kv);
  row["wrong_out"] = fmt_num(chk.wrong_out);
  row["max_rel_err"] = fmt_num(chk.max_rel, 4);
  if (!chk.ok()) throw std::runtime_error("wrong result: " + chk.first);
  row["verified"] = "yes";

  // NVLink bytes per useful byte from NVML's counters (real peers only: virtual ranks move over
  // HBM): every GPU's received data over kCounted untimed passes, per block the passes deliver
  // (N ranks x (N - 1) blocks each).
  constexpr int kCounted = 3;
  if (!c.group.is_virtual() && impl_info(p.impl).moves) {
    point_cost::Phase cost("link-counters");
    c.sync_local();
    c.group.barrier();
    const double before = group_rx_kib(c);
    for (int k = 0; k < kCounted; ++k) untimed(c, [&] { impl->enqueue(); });
    const double after = group_rx_kib(c);
    const double useful = double(kCounted) * n * (n - 1) * double(c.shape.block_bytes());
    if (before >= 0 && after >= before) row["link_bytes_per_useful_nvml"] = fmt_num((after - before) * 1024 / useful, 4);
  }

  const SampleStats st = put_per_unit_times(row, t.ms, t.iters, n, "step_us");
  const ImplInfo& info = impl_info(p.impl);
  if (info.computes) row["tflops"] = fmt_num(c.shape.step_flops() / (st.median * 1e9));
  if (info.moves) {
    // copy_only moves a block in N - 1 of its N... steps: its rate is per pull.
    const double pulls_per_step = p.impl == "copy_only" ? 1.0 : double(n - 1) / n;
    const double per_pull_s = st.median * 1e-3 / pulls_per_step;
    row["copy_gbps"] = fmt_num(double(c.shape.block_bytes()) / per_pull_s / 1e9);
  }
}

}  // namespace pk::seqpar
