#include "microbench/fused/fused_context.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "microbench/gemm/cublaslt_gemm.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"

namespace pk::fused {
namespace {

// Generation 0 feeds every timed run (bitwise the same inputs for every schedule compared);
// later generations only the final checks.
uint64_t seed_a(int gpu, uint64_t gen) { return 0xA0000ull + static_cast<uint64_t>(gpu) + (gen << 24); }
uint64_t seed_b(int gpu, uint64_t gen) { return 0xB0000ull + static_cast<uint64_t>(gpu) + (gen << 24); }
constexpr int kSpotSamples = 48;

uint64_t out_elems(Op op, const Shape& s, int world) {
  return uint64_t(op == Op::gemm_rs ? s.m / world : s.m) * uint64_t(s.n);
}

// What the point's schedule leaves in the output buffers.
bool computes(const Point& p, Computes what) { return schedule(p.schedule).computes == what; }

}  // namespace

int64_t flag_words(Op op, const Shape& s) {
  const int64_t tm = s.m / kTileM, tn = s.n / kTileN;
  return op == Op::ag_gemm ? tm : tm * tn * kHalves * kMaxGpus;
}

int fused_group_m(KernelKind k, int world, int requested) {
  if (requested > 0) return requested;
  return k == KernelKind::ag_pull ? Cfg::DEFAULT_GROUP_M : std::max(1, Cfg::DEFAULT_GROUP_M / world);
}

Context::Context(PeerGroup& g, const FusedOptions& o, const std::vector<Point>& points)
    : StudyContext(g), topo(g.topology()), opt(o), nccl(g) {
  const int w = world();
  uint64_t a_bytes = 4096, partial_bytes = 4096, out_bytes = 4096;
  int64_t flags = 0;
  for (const Point& p : points) {
    const Shape& s = p.shape;
    a_bytes = std::max<uint64_t>(a_bytes, uint64_t(s.m) * s.k * 2);
    if (p.op != Op::ag_gemm) partial_bytes = std::max<uint64_t>(partial_bytes, 2ull * s.m * s.n * 2);
    out_bytes = std::max<uint64_t>(out_bytes, out_elems(p.op, s, w) * 2);
    flags = std::max(flags, flag_words(p.op, s));
  }
  a_ = group.alloc(a_bytes, "fused A");
  partial_ = group.alloc(partial_bytes, "fused partial C");
  out_ = group.alloc(out_bytes, "fused output");
  // Room for several instances' regions before the pool wraps (points run one at a time).
  sync_ = group.alloc(uint64_t(std::max<int64_t>(4 * fused_sync_ints(flags), 1 << 20)) * 4, "fused signals");
}

Context::~Context() {
  release_shape();
  for (auto& [g, c] : compares_) {
    group.set_device(g);
    c.reset();
  }
}

gemm::CublasLtGemm& Context::ref_gemm(int g, int rows, int n, int k) {
  auto& slot = ref_gemms_[std::make_tuple(g, rows, n, k)];
  if (!slot) slot = std::make_unique<gemm::CublasLtGemm>(rows, n, k, 0);
  return *slot;
}

gemm::PendingComparison& Context::comparison(int g) {
  auto& slot = compares_[g];
  if (!slot) slot = std::make_unique<gemm::PendingComparison>();
  return *slot;
}

void Context::sync_local() {
  for (int g : local_gpus()) {
    group.set_device(g);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

double Context::ms_since_operation() const {
  if (!last_operation_) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - *last_operation_).count();
}

void Context::release_shape() {
  for (auto& [g, d] : data_) {
    group.set_device(g);
    std::vector<void*> bufs = {d.b};
    for (const InputSet& in : d.sets) bufs.insert(bufs.end(), {in.a_ref, in.partial_ref, in.ref});
    for (void* p : bufs)
      if (p) cudaFree(p);
  }
  data_.clear();
  // Their workspaces freed (each with its GPU current): the new shape's problems make their own.
  for (auto& [key, gm] : ref_gemms_) {
    group.set_device(std::get<0>(key));
    gm.reset();
  }
  ref_gemms_.clear();
  have_shape_ = false;
  set_ = -1;
  for (int i = 0; i < 2; ++i) set_made_[i] = ref_made_[i] = false;
  ref_reported_ = false;
}

void Context::ensure_shape(Op op, const Shape& s) {
  if (!(have_shape_ && op == op_ && s == shape_)) {
    collectively(group.comm(), [&] {
      release_shape();
      const uint64_t ea = uint64_t(s.m) * s.k, eb = uint64_t(s.n) * s.k, ec = uint64_t(s.m) * s.n;
      for (int g : local_gpus()) {
        group.set_device(g);
        LocalData& d = data_[g];
        PK_CUDA_CHECK(cudaMalloc(&d.b, eb * 2));
        for (InputSet& in : d.sets) {
          if (op == Op::ag_gemm) PK_CUDA_CHECK(cudaMalloc(&in.a_ref, ea * 2));
          else PK_CUDA_CHECK(cudaMalloc(&in.partial_ref, ec * 2));
        }
      }
    });
    op_ = op;
    shape_ = s;
    have_shape_ = true;
    check_generation_ = ++generations_;  // every rank hands them out in the same order
  }
  use_set(kTimedInputs);
  if (!warmed_up_) collectively(group.comm(), [&] { study_warm_up(); });
}

void Context::fresh_inputs() {
  if (!have_shape_) throw std::logic_error("fresh_inputs before ensure_shape");
  use_set(kCheckInputs);
}

// A and B refilled in place (cheap: a hash per element); what derives from them made once.
void Context::use_set(InputSetId set) {
  if (set == set_) return;
  const Shape& s = shape_;
  const uint64_t gen = generation(set);
  const uint64_t ea = uint64_t(s.m) * s.k, eb = uint64_t(s.n) * s.k, shard_a = ea / world();
  const bool make = !set_made_[set];
  std::optional<point_cost::Phase> cost;  // the set's first fill makes its partial references: the shape's cost
  if (make) cost.emplace("inputs");
  collectively(group.comm(), [&] {
    set_ = -1;  // until every fill is done
    // Every GPU's work queued before any is waited for: virtual ranks fill and run their
    // partial references on their own SMs at once.
    for (int g : local_gpus()) {
      group.set_device(g);
      gemm::fill_bf16_uniform(data_.at(g).b, eb, seed_b(g, gen));
      // AG: this GPU's shard of A (a gather brings the peers'; prepare_point poisons or fills them).
      if (op_ == Op::ag_gemm) gemm::fill_bf16_uniform(a(g) + g * shard_a, shard_a, seed_a(g, gen));
      else gemm::fill_bf16_uniform(a(g), ea, seed_a(g, gen));
      if (make) make_set(g, set);
    }
    sync_local();
  });
  set_made_[set] = true;
  set_ = set;
  if (make && op_ != Op::ag_gemm) note_operation();  // the partial references' GEMMs: the GPU did not idle
}

void Context::make_set(int g, InputSetId set) {
  const Shape& s = shape_;
  const uint64_t gen = generation(set);
  const uint64_t ea = uint64_t(s.m) * s.k, ec = uint64_t(s.m) * s.n, shard_a = ea / world();
  InputSet& in = data_.at(g).sets[set];
  if (op_ == Op::ag_gemm) {
    for (int q = 0; q < world(); ++q) gemm::fill_bf16_uniform(in.a_ref + q * shard_a, shard_a, seed_a(q, gen));
  } else {
    // Poisoned first: a reference cuBLASLt failed to write is caught, not read as stale data
    // (initcheck read an unpoisoned partial reference as never written: results/h100x1/README.md,
    // sanitizer).
    PK_CUDA_CHECK(cudaMemsetAsync(in.partial_ref, gemm::kPoisonByte, ec * 2, nullptr));
    ref_gemm(g, s.m, s.n, s.k).run(a(g), data_.at(g).b, in.partial_ref, nullptr);
  }
}

// Clocks and power settle on real work before the first point: the operator's GEMM into a
// buffer every point poisons or fills before it runs (prepare_point).
void Context::study_warm_up() {
  const Shape& s = shape_;
  warmed_up_ = true;  // once, whatever happens below
  if (opt.study_warmup_ms <= 0) return;
  // Every local GPU at once, as the timed points run them: one after the other, the first
  // would idle while the others warm up (and virtual ranks would each warm a share alone).
  const bool ag = op_ == Op::ag_gemm;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  while (std::chrono::duration<double, std::milli>(clock::now() - t0).count() < opt.study_warmup_ms) {
    for (int g : local_gpus()) {
      group.set_device(g);
      const bf16* wa = ag ? data_.at(g).sets[kTimedInputs].a_ref : a(g);
      for (int i = 0; i < 4; ++i) ref_gemm(g, s.m, s.n, s.k).run(wa, data_.at(g).b, ag ? out(g) : partial(g), stream(g));
    }
    for (int g : local_gpus()) {
      group.set_device(g);
      PK_CUDA_CHECK(cudaStreamSynchronize(stream(g)));
    }
  }
  note_operation();
}

bool Context::reads_reference(const Point& p) const {
  return op_ == Op::ag_gemm ? !computes(p, Computes::collective) : !computes(p, Computes::gemm);
}

// What one GPU's reference needs between its queued GEMM and its host check.
struct Context::RefWork {
  const bf16 *ra = nullptr, *rb = nullptr;
  int rows = 0, rk = 0;
  uint64_t er = 0;
  bf16 *cat_a = nullptr, *cat_b = nullptr, *tmp = nullptr;
  RefWork() = default;
  RefWork(const RefWork&) = delete;  // owns its scratch
  RefWork& operator=(const RefWork&) = delete;
  ~RefWork() {
    for (void* p : {static_cast<void*>(cat_a), static_cast<void*>(cat_b), static_cast<void*>(tmp)})
      if (p) cudaFree(p);
  }
};

void Context::ensure_reference(const Point& p) {
  if (set_ < 0) throw std::logic_error("ensure_reference before ensure_shape");
  if (!reads_reference(p) || ref_made_[set_]) return;
  // Once per shape and input set, on the first point that reads them (a verified run's, often):
  // the shape's cost, not the verification's.
  point_cost::Phase cost("inputs");
  collectively(group.comm(), [&] {
    // Every GPU's GEMM and rms pass queued before any is waited for (virtual ranks make theirs
    // on their own SMs at once); the fp64 host checks after, each GPU's as strict as before.
    std::map<int, RefWork> work;
    for (int g : local_gpus()) {
      group.set_device(g);
      queue_reference(g, work[g]);
    }
    sync_local();
    note_operation();  // GEMMs of the shape: the GPU did not idle (the next point's warm-up); the host checks below idle it
    for (int g : local_gpus()) {
      group.set_device(g);
      check_reference(g, work.at(g));
      work.erase(g);  // its scratch freed with its GPU current
    }
  });
  ref_made_[set_] = true;
  ref_reported_ = true;
}

void Context::queue_reference(int g, RefWork& w) {
  const Shape& s = shape_;
  const int world_size = world();
  const InputSetId set = static_cast<InputSetId>(set_);
  const uint64_t gen = generation(set);
  LocalData& d = data_.at(g);
  InputSet& in = d.sets[set];
  // RS: only this GPU's rows of C (its output holds no others): w times less work than all of C.
  const int rows = op_ == Op::gemm_rs ? s.m / world_size : s.m;
  const uint64_t ea = uint64_t(s.m) * s.k, eb = uint64_t(s.n) * s.k, er = uint64_t(rows) * s.n;
  w.rows = rows;
  w.er = er;
  if (!in.ref) PK_CUDA_CHECK(cudaMalloc(&in.ref, er * 2));
  PK_CUDA_CHECK(cudaMemsetAsync(in.ref, gemm::kPoisonByte, er * 2, nullptr));  // as the partial reference (make_set)
  // cuBLASLt with fp32 accumulation over everything the operator sums, from inputs regenerated
  // here from every GPU's seed (no communication involved).
  if (op_ == Op::ag_gemm) {
    w.ra = in.a_ref;
    w.rb = d.b;  // the current set's (use_set)
    w.rk = s.k;
  } else {
    // sum_q A_q B_q^T = [A_0 .. A_w-1] [B_0 .. B_w-1]^T: one GEMM with K' = w K, over C's rows
    // [row0, row0 + rows).
    const int row0 = op_ == Op::gemm_rs ? g * rows : 0;
    PK_CUDA_CHECK(cudaMalloc(&w.cat_a, uint64_t(rows) * s.k * world_size * 2));
    PK_CUDA_CHECK(cudaMalloc(&w.cat_b, eb * world_size * 2));
    PK_CUDA_CHECK(cudaMalloc(&w.tmp, std::max(ea, eb) * 2));
    for (int q = 0; q < world_size; ++q) {
      gemm::fill_bf16_uniform(w.tmp, ea, seed_a(q, gen));
      PK_CUDA_CHECK(cudaMemcpy2DAsync(w.cat_a + q * s.k, size_t(world_size) * s.k * 2, w.tmp + uint64_t(row0) * s.k,
                                      size_t(s.k) * 2, size_t(s.k) * 2, rows, cudaMemcpyDeviceToDevice, nullptr));
      gemm::fill_bf16_uniform(w.tmp, eb, seed_b(q, gen));
      PK_CUDA_CHECK(cudaMemcpy2DAsync(w.cat_b + q * s.k, size_t(world_size) * s.k * 2, w.tmp, size_t(s.k) * 2,
                                      size_t(s.k) * 2, s.n, cudaMemcpyDeviceToDevice, nullptr));
    }
    w.ra = w.cat_a;
    w.rb = w.cat_b;
    w.rk = world_size * s.k;
  }
  ref_gemm(g, rows, s.n, w.rk).run(w.ra, w.rb, in.ref, nullptr);
  // rms(ref): the scale of the per-element bound (a comparison of the reference with itself).
  // The same (legacy default) stream: it follows the GEMM.
  comparison(g).start(in.ref, in.ref, er, gemm::kElemTol, nullptr);
}

void Context::check_reference(int g, RefWork& w) {
  const Shape& s = shape_;
  const InputSetId set = static_cast<InputSetId>(set_);
  const uint64_t gen = generation(set);
  InputSet& in = data_.at(g).sets[set];
  in.ref_rms = comparison(g).result().ref_rms;
  const gemm::Comparison spot =
      gemm::spot_check_host(w.ra, w.rb, in.ref, w.rows, s.n, w.rk, in.ref_rms, kSpotSamples, 0x5eed + uint64_t(g) + gen);
  if (!spot.ok())
    throw std::runtime_error("GPU" + std::to_string(g) + ": the cuBLASLt reference of " + op_name(op_) + " " + s.str() +
                             " failed the fp64 host check: " + spot.describe());
  if (!ref_reported_ && group.comm().rank() == 0 && g == local_gpus().front())
    std::fprintf(stderr, "fused: %s %s, reference rms %.3g, fp64 spot check max rel err %.3g\n", op_name(op_).c_str(),
                 s.str().c_str(), in.ref_rms, spot.max_rel_err);
}

SyncRegion Context::new_sync(int64_t flags) {
  const int64_t cap = static_cast<int64_t>(sync_.bytes() / 4);
  SyncRegion r{sync_next_, fused_sync_ints(flags)};
  if (r.ints > cap) throw std::logic_error("signal region of " + std::to_string(r.ints) + " ints exceeds the pool");
  if (r.offset_ints + r.ints > cap) r.offset_ints = 0;  // earlier instances are done (points run one by one)
  sync_next_ = r.offset_ints + r.ints;
  collectively(group.comm(), [&] {
    for (int g : local_gpus()) {
      group.set_device(g);
      PK_CUDA_CHECK(cudaMemset(sync_.local(g) + r.offset_ints * 4, 0, r.ints * 4));
    }
    sync_local();
  });
  group.barrier();  // every GPU's region is zero before any GPU's kernel signals into it
  return r;
}

FusedSync Context::sync_table(const SyncRegion& r, int g) const {
  FusedSync s{};
  s.epochs = reinterpret_cast<int*>(sync_.local(g)) + r.offset_ints + sync_epochs_at();
  s.slots = sync_.table<int>(g, (r.offset_ints + sync_slots_at()) * 4);
  s.done = sync_.table<int>(g, (r.offset_ints + sync_done_at()) * 4);
  s.flags = sync_.table<int>(g, (r.offset_ints + sync_flags_at()) * 4);
  return s;
}

void Context::prepare_point(const Point& p) {
  if (set_ < 0) throw std::logic_error("prepare_point before ensure_shape");
  const Shape& s = shape_;
  const int w = world();
  const uint64_t ea = uint64_t(s.m) * s.k, ec = uint64_t(s.m) * s.n, shard_a = ea / w;
  collectively(group.comm(), [&] {
    for (int g : local_gpus()) {
      group.set_device(g);
      const InputSet& d = data_.at(g).sets[set_];
      PK_CUDA_CHECK(cudaMemset(out(g), gemm::kPoisonByte, out_elems(op_, s, w) * 2));
      if (op_ == Op::ag_gemm) {
        if (computes(p, Computes::gemm)) {
          PK_CUDA_CHECK(cudaMemcpy(a(g), d.a_ref, ea * 2, cudaMemcpyDeviceToDevice));
        } else {  // what a gather did not bring stays NaN
          for (int q = 0; q < w; ++q)
            if (q != g) PK_CUDA_CHECK(cudaMemset(a(g) + q * shard_a, gemm::kPoisonByte, shard_a * 2));
        }
      } else if (computes(p, Computes::collective)) {
        PK_CUDA_CHECK(cudaMemcpy(partial(g), d.partial_ref, ec * 2, cudaMemcpyDeviceToDevice));
      } else {
        PK_CUDA_CHECK(cudaMemset(partial(g), gemm::kPoisonByte, 2 * ec * 2));
      }
    }
    sync_local();
  });
  group.barrier();
}

Expectation Context::expectation(const Point& p, int g) const {
  if (set_ < 0) throw std::logic_error("expectation before ensure_shape");
  const Shape& s = shape_;
  const int w = world();
  const InputSet& d = data_.at(g).sets[set_];
  if (reads_reference(p) && !ref_made_[set_]) throw std::logic_error("expectation before ensure_reference");
  const uint64_t ec = uint64_t(s.m) * s.n;
  if (op_ == Op::ag_gemm) {
    if (computes(p, Computes::collective))
      return {a(g), d.a_ref, uint64_t(s.m) * s.k, 0.0, "gathered A against every GPU's generated shard (bitwise)"};
    return {out(g), d.ref, ec, gemm::kElemTol, "C against cuBLASLt on the generated gathered A"};
  }
  if (computes(p, Computes::gemm))
    return {partial(g), d.partial_ref, ec, gemm::kElemTol, "partial C against cuBLASLt"};
  const double tol = reduction_tolerance(w);
  if (op_ == Op::gemm_rs)
    return {out(g), d.ref, ec / w, tol,
            "C's row shard against cuBLASLt over the concatenated K of every GPU"};
  return {out(g), d.ref, ec, tol, "C against cuBLASLt over the concatenated K of every GPU"};
}

}  // namespace pk::fused
