// What the schedules (schedules/*.cu) build on: the kernel dispatch, the parameters of the
// fused kernels and the standalone collective, the GEMM runners, the GEMM and collective in
// sequence, and the registry that makes a point's implementation.
#include <map>
#include <tuple>

#include "microbench/gemm/cublaslt_gemm.h"
#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/gemm/pk_gemm.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tensor_map.h"
#include "microbench/harness/tensor_map_gemm.h"
#include "microbench/fused/fused_context.h"
#include "microbench/fused/fused_tuned.h"
#include "microbench/fused/schedule.h"

namespace pk::fused {

void prepare_kernel(KernelKind k, int blocks, const GpuInfo& g) {
  switch (k) {
    case KernelKind::reduce_intra: return prepare_reduce_intra(blocks, g);
    case KernelKind::reduce_inter: return prepare_reduce_inter(blocks, g);
    case KernelKind::ag_pull: return prepare_ag_pull(blocks, g);
    case KernelKind::ag_remote: return prepare_ag_remote(blocks, g);
  }
}

void launch_kernel(KernelKind k, const FusedParams& p, int blocks, cudaStream_t s) {
  switch (k) {
    case KernelKind::reduce_intra: return launch_reduce_intra(p, blocks, s);
    case KernelKind::reduce_inter: return launch_reduce_inter(p, blocks, s);
    case KernelKind::ag_pull: return launch_ag_pull(p, blocks, s);
    case KernelKind::ag_remote: return launch_ag_remote(p, blocks, s);
  }
}

void launch_standalone(const StandaloneParams& p, int blocks, cudaStream_t s) {
  standalone_collective_kernel<<<blocks, StandaloneConfig::kThreads, 0, s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

void StepsImpl::enqueue() {
  for (const Step& st : steps_) {
    if (st.nccl) ctx.nccl.group_start();
    for (int g : ctx.local_gpus()) {
      ctx.group.set_device(g);
      st.fn(g, ctx.stream(g));
    }
    if (st.nccl) ctx.nccl.group_end();
  }
}

// ---- GEMM runners ----
struct GemmRunners::Impl {
  Context* ctx;
  bool cublas;
  Shape shape;
  std::map<int, std::unique_ptr<gemm::PkGemm>> pk;
  std::map<int, std::unique_ptr<gemm::CublasLtGemm>> lt;
  std::map<std::tuple<int, const void*, const void*, void*>, int> handles;  // pk: tensor maps encoded once
};

GemmRunners::GemmRunners(Context& c, bool cublas, int rows, int n, int k, int sm_target)
    : impl_(std::make_unique<Impl>()) {
  impl_->ctx = &c;
  impl_->cublas = cublas;
  impl_->shape = Shape{rows, n, k};
  for (int g : c.local_gpus()) {
    c.group.set_device(g);
    const GpuInfo& info = c.gpu(g);
    if (cublas) {
      impl_->lt[g] = std::make_unique<gemm::CublasLtGemm>(rows, n, k, sm_target >= info.sm_count ? 0 : sm_target);
      algo_ = impl_->lt[g]->algo_description();
      sms_ = sm_target > 0 ? sm_target : info.sm_count;
    } else {
      impl_->pk[g] = std::make_unique<gemm::PkGemm>("c1", info, info.sm_count);
      sms_ = info.sm_count;
    }
  }
}

GemmRunners::~GemmRunners() = default;

void GemmRunners::tune(const std::function<Operands(int g)>& operands) {
  if (!impl_->cublas) return;
  Context& c = *impl_->ctx;
  for (int g : c.local_gpus()) {
    c.group.set_device(g);
    const Operands o = operands(g);
    // Keyed by the physical GPU and the rank's SMs: virtual ranks (one GPU, equal shares) tune
    // once for all of them, as does every later point of the problem.
    impl_->lt.at(g)->autotune(o.a, o.b, o.c, c.stream(g), c.gpu(g).pci_bus_id, c.gpu(g).sm_count,
                              c.opt.cublas_autotune);
  }
  // A reused choice only queues its one launch: every GPU's queued before any is waited for
  // (virtual ranks ran theirs one after the other, each on its share of the SMs: 45 of a
  // 16384 point's 97 ms of harness time on one H100 with 4 virtual ranks).
  c.sync_local();
  algo_ = impl_->lt.at(c.local_gpus().front())->algo_description();
  c.note_operation();  // the timed candidates ran this point's GEMM: the GPU did not idle (its warm-up)
}

void GemmRunners::run(int g, const bf16* a, const bf16* b, bf16* c, cudaStream_t s) {
  if (impl_->cublas) {
    impl_->lt.at(g)->run(a, b, c, s);
    return;
  }
  gemm::PkGemm& pk = *impl_->pk.at(g);
  const auto key = std::make_tuple(g, static_cast<const void*>(a), static_cast<const void*>(b), static_cast<void*>(c));
  auto it = impl_->handles.find(key);
  if (it == impl_->handles.end())
    it = impl_->handles.emplace(key, pk.add(a, b, c, impl_->shape, 0, nullptr, impl_->ctx->deadline(g))).first;
  pk.launch(it->second, s);
}

// ---- parameters ----
std::pair<int, int> sm_split(Context& c, const Point& p) {
  const int sms = c.gpu(c.local_gpus().front()).sm_count;
  if (sms > kMaxBlocks) throw SkipPoint("the fused kernels' signals are sized for at most " + std::to_string(kMaxBlocks) + " SMs");
  const int comm = p.knob(knobs::comm_sms.name);  // 0: no communicator blocks
  if (comm >= sms) throw SkipPoint("comm_sms=" + std::to_string(comm) + " leaves no SM of " + std::to_string(sms) + " to the GEMM");
  return {sms - comm, comm};
}


FusedParams fused_params(Context& c, int g, KernelKind k, const Point& p, const SyncRegion& sync, int compute_blocks) {
  const Shape& s = p.shape;
  const int w = c.world();
  const bool ag = p.op == Op::ag_gemm;
  FusedParams fp{};
  static_cast<gemm::GemmParams&>(fp) =
      gemm::make_gemm_params<Cfg>(c.a(g), c.data(g).b, ag ? c.out(g) : c.partial(g), s.m, s.n, s.k, compute_blocks,
                                  fused_group_m(k, w, c.opt.group_m), nullptr, c.deadline(g));
  fp.sync = c.sync_table(sync, g);
  fp.rank = g;
  fp.world = w;
  fp.reduce_to_all = p.op == Op::gemm_ar ? 1 : 0;
  fp.order_first = k == KernelKind::ag_remote ? 0 : 1;
  fp.rows_per_flag = 1;
  const PeerTable<bf16> outs = c.out_table(g), as = c.a_table(g);
  switch (k) {
    case KernelKind::reduce_intra: {
      const int rows = p.op == Op::gemm_rs ? s.m / w : s.m;
      for (int q = 0; q < w; ++q)
        fp.tmap_peer[q] = make_tensor_map_2d_bf16_sw128(outs.at[q], s.n, rows, uint64_t(s.n) * 2, Cfg::EPI_COLS, Cfg::WG_M);
      break;
    }
    case KernelKind::reduce_inter: {
      // Tile-major partials (partial_box_row()): a column of EPI_COLS-wide rows per parity.
      const uint64_t box_rows = uint64_t(s.m) * s.n / Cfg::EPI_COLS;
      fp.tmap_c = make_tensor_map_2d_bf16_sw128(c.partial(g), Cfg::EPI_COLS, box_rows, Cfg::EPI_COLS * 2, Cfg::EPI_COLS,
                                                Cfg::WG_M);
      fp.tmap_c_odd = make_tensor_map_2d_bf16_sw128(c.partial(g) + uint64_t(s.m) * s.n, Cfg::EPI_COLS, box_rows,
                                                    Cfg::EPI_COLS * 2, Cfg::EPI_COLS, Cfg::WG_M);
      fp.part = c.partial_table(g);
      // The communicator stores a piece (reduce_ring's rows x BN elements of a unit) as one
      // box of EPI_COLS columns.
      for (int q = 0; q < w; ++q)
        if (p.op == Op::gemm_ar || q == g)
          fp.tmap_out[q] = make_tensor_map_2d_bf16(outs.at[q], s.n, p.op == Op::gemm_ar ? s.m : s.m / w, uint64_t(s.n) * 2,
                                                   Cfg::EPI_COLS,
                                                   reduce_ring(reduce_stage_pieces(w, fp.reduce_to_all)).rows * Cfg::BN / Cfg::EPI_COLS);
      if (reduce_in_place(w, fp.reduce_to_all))
        fp.tmap_peer[g] = make_tensor_map_2d_bf16_sw128(outs.at[g], s.n, s.m / w, uint64_t(s.n) * 2, Cfg::EPI_COLS, Cfg::WG_M);
      break;
    }
    case KernelKind::ag_pull:
      fp.a = as;
      break;
    case KernelKind::ag_remote:
      for (int q = 0; q < w; ++q)
        fp.tmap_peer[q] = make_tensor_map_2d_bf16_sw128(as.at[q], s.k, s.m, uint64_t(s.k) * 2, Cfg::BK, Cfg::BM);
      break;
  }
  return fp;
}

StandaloneParams standalone_params(Context& c, int g, CollKind kind, const SyncRegion& sync) {
  const Shape& s = c.shape();
  StandaloneParams p{};
  p.sync = c.sync_table(sync, g);
  p.src = kind == kCollAg ? c.a_table(g) : c.partial_table(g);
  p.dst = kind == kCollAg ? c.a_table(g) : c.out_table(g);
  p.row_elems = kind == kCollAg ? s.k : s.n;
  p.rows = s.m;
  p.kind = kind;
  p.deadline = c.deadline(g);
  return p;
}

// ---- the collective alone ----
void enqueue_nccl_collective(Context& c, int g, int ctas, cudaStream_t s) {
  const Shape& sh = c.shape();
  const int w = c.world();
  switch (c.op()) {
    case Op::gemm_rs:
      c.nccl.reduce_scatter(g, ctas, c.partial(g), c.out(g), size_t(sh.m / w) * sh.n, s);
      break;
    case Op::gemm_ar:
      c.nccl.all_reduce(g, ctas, c.partial(g), c.out(g), size_t(sh.m) * sh.n, s);
      break;
    case Op::ag_gemm: {
      const size_t shard = size_t(sh.m / w) * sh.k;
      c.nccl.all_gather(g, ctas, c.a(g) + g * shard, c.a(g), shard, s);  // in place
      break;
    }
  }
}

void enqueue_pk_collective(Context& c, int g, const SyncRegion& sync, cudaStream_t s) {
  const CollKind kind = c.op() == Op::gemm_rs ? kCollRs : c.op() == Op::gemm_ar ? kCollAr : kCollAg;
  launch_standalone(standalone_params(c, g, kind, sync), c.gpu(g).sm_count, s);
}

// ---- the GEMM and the collective in sequence ----
std::unique_ptr<Impl> make_in_sequence(const Point& p, Context& c, GemmBy gemm_by, CollBy coll_by) {
  const bool ag = p.op == Op::ag_gemm, pk_coll = coll_by == CollBy::pk, nccl_coll = coll_by == CollBy::nccl;
  // Collective set-up first, on every rank alike; then what each rank builds for its GPUs.
  if (nccl_coll) c.nccl.ensure(0);
  SyncRegion sync;
  if (pk_coll) sync = c.new_sync(0);
  std::shared_ptr<GemmRunners> gemm;
  if (gemm_by != GemmBy::none)
    collectively(c.group.comm(), [&] {
      gemm = std::make_shared<GemmRunners>(c, gemm_by == GemmBy::cublas, p.shape.m, p.shape.n, p.shape.k);
      gemm->tune([&c, ag](int g) { return GemmRunners::Operands{c.a(g), c.data(g).b, ag ? c.out(g) : c.partial(g)}; });
    });

  // The GEMM of the operator: RS/AR write the partial C, AG reads the gathered A.
  auto gemm_step = [&c, gemm, ag](int g, cudaStream_t st) {
    gemm->run(g, c.a(g), c.data(g).b, ag ? c.out(g) : c.partial(g), st);
  };
  auto coll_step = [&c, sync, pk_coll](int g, cudaStream_t st) {
    if (pk_coll) enqueue_pk_collective(c, g, sync, st);
    else enqueue_nccl_collective(c, g, 0, st);
  };
  auto impl = std::make_unique<StepsImpl>(c);
  const bool coll = coll_by != CollBy::none;
  if (coll && ag) impl->add(nccl_coll, coll_step);  // all-gather, then the GEMM
  if (gemm) impl->add(false, gemm_step);
  if (coll && !ag) impl->add(nccl_coll, coll_step);  // the GEMM, then the reduction
  if (gemm) {
    impl->compute_sms = gemm->sms();
    impl->algo = gemm->algo();
    if (gemm_by == GemmBy::pk) impl->tile_order = "grouped";
  }
  return impl;
}

// ---- the registry ----
namespace {
using Factory = std::unique_ptr<Impl> (*)(const Point&, Context&);
Factory factory(const Schedule& s) {
  static const std::map<std::string, Factory> m = {
#define PK_FUSED_SCHEDULE(name) {#name, &make_schedule_##name},
#include "microbench/fused/schedule_list.h"
#undef PK_FUSED_SCHEDULE
  };
  return m.at(s.name);  // the same list declared s
}
}  // namespace

std::unique_ptr<Impl> make_impl(const Point& p, Context& c) {
  if (p.tuning) {  // a tuned point: what its table answered, or skipped with the table's refusal
    if (!p.tuning->refused.empty()) throw SkipPoint(p.tuning->refused);
    return make_impl(point_run(p), c);
  }
  const Schedule& s = schedule(p.schedule);  // ArgError naming --schedules when not listed
  if (s.needs_nccl && !NcclComms::built()) throw SkipPoint("this build has no NCCL");
  if (s.peer_access)
    for (int a = 0; a < c.world(); ++a)
      for (int b = 0; b < c.world(); ++b)
        if (!c.group.can_access(a, b))
          throw SkipPoint("GPU" + std::to_string(a) + " cannot reach GPU" + std::to_string(b) + "'s memory");
  return factory(s)(p, c);
}


// ---- the fused kernels ----
std::map<int, FusedParams> prepare_fused(Context& c, const Point& p, KernelKind kind, const SyncRegion& sync,
                                         int compute_blocks, int comm_blocks) {
  std::map<int, FusedParams> params;
  collectively(c.group.comm(), [&] {
    for (int g : c.local_gpus()) {
      c.group.set_device(g);
      prepare_kernel(kind, compute_blocks + comm_blocks, c.gpu(g));
      params[g] = fused_params(c, g, kind, p, sync, compute_blocks);
    }
  });
  return params;
}

std::unique_ptr<Impl> make_fused(const Point& p, Context& c, const KernelPlan& plan) {
  const auto [compute, comm] = sm_split(c, p);
  const SyncRegion sync = c.new_sync(plan.flags);
  auto params = std::make_shared<std::map<int, FusedParams>>(prepare_fused(c, p, plan.kernel, sync, compute, comm));
  if (plan.order_first)
    for (auto& [g, fp] : *params) fp.order_first = *plan.order_first;
  auto impl = std::make_unique<StepsImpl>(c);
  if (plan.zero_output) {  // the reduce-adds need a zeroed output: part of the timed operation
    const uint64_t bytes = uint64_t(p.op == Op::gemm_rs ? p.shape.m / c.world() : p.shape.m) * p.shape.n * 2;
    impl->add(false, [&c, bytes](int g, cudaStream_t st) { PK_CUDA_CHECK(cudaMemsetAsync(c.out(g), 0, bytes, st)); });
  }
  const int blocks = compute + comm;
  const KernelKind kind = plan.kernel;
  impl->add(false, [params, kind, blocks](int g, cudaStream_t st) { launch_kernel(kind, params->at(g), blocks, st); });
  impl->compute_sms = compute;
  impl->comm_blocks = comm;
  impl->group_m = params->begin()->second.group_m;
  impl->tile_order = plan.tile_order;
  return impl;
}


void run_untimed(Context& c, Impl& impl, int ops) {
  collectively(c.group.comm(), [&] {
    for (int i = 0; i < ops; ++i) impl.enqueue();
    c.sync_local();
    c.status.check(c.local_gpus());
  });
  c.note_operation();
}

gemm::Comparison verify_fresh_run(Context& c, Impl& impl, const Point& p) {
  c.fresh_inputs();
  c.prepare_point(p);
  run_untimed(c, impl, 1);
  return verify_point(c, p);
}

gemm::Comparison verify_point(Context& c, const Point& p) {
  c.ensure_reference(p);
  gemm::Comparison worst;
  collectively(c.group.comm(), [&] {
    // Every GPU's comparison queued before any is read (virtual ranks compare on their own SMs
    // at once), into room allocated once per GPU: nothing allocated or freed per check.
    for (int g : c.local_gpus()) {
      c.group.set_device(g);
      const Expectation x = c.expectation(p, g);
      c.comparison(g).start(x.out, x.ref, x.elems, x.elem_tol, c.stream(g));
    }
    c.sync_local();
    for (int g : c.local_gpus()) {
      const gemm::Comparison r = c.comparison(g).result();
      worst.merge(r);
      worst.elem_tol = r.elem_tol;
      worst.ref_rms = r.ref_rms;
    }
  });
  c.note_operation();  // the comparisons read every output and reference: GPU work up to here
  Comm& comm = c.group.comm();
  worst.rel_fro_err = comm.max(worst.rel_fro_err);
  worst.max_rel_err = comm.max(worst.max_rel_err);
  double v[2] = {double(worst.wrong), double(worst.elems)};
  comm.allreduce_max(v, 2);  // a count per rank: the worst rank's
  worst.wrong = static_cast<uint64_t>(v[0]);
  worst.elems = static_cast<uint64_t>(v[1]);
  return worst;
}

}  // namespace pk::fused
