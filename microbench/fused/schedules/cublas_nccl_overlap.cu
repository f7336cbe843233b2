// Baseline: cuBLASLt and NCCL on two streams, chunk by chunk, as a user overlapping the two
// libraries would: chunk j's GEMMs on one stream, its collective (ncclReduceScatter,
// ncclAllGather, ncclAllReduce: the operator's own collective on the chunk) on the other.
// cuBLASLt gets the SMs comm_sms leaves (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET), NCCL comm_sms
// CTAs (maxCTAs). Searched, as a user tuning this baseline would (one point each; the ratios
// use the best).
#include "microbench/fused/schedule.h"

PK_FUSED_DECLARATION(cublas_nccl_overlap,
                     {.kind = Kind::baseline,
                      .summary = "cuBLASLt (SM target: the SMs left by comm_sms) and NCCL (maxCTAs = comm_sms) on two "
                                 "streams, chunk by chunk (ncclReduceScatter / ncclAllGather / ncclAllReduce of each "
                                 "chunk); comm_sms 16,32 x chunks 1,2,4,8 unless given, the best of them is the baseline",
                      .knobs = {{&knobs::comm_sms, "16,32"}, {&knobs::chunks, "1,2,4,8"}},
                      .needs_nccl = true,
                      .peer_access = false})

#ifdef PK_FUSED_FACTORIES
namespace pk::fused {
namespace {

// The operator says which GEMM pieces (row offsets of `rows` rows into A and C) and which
// NCCL call make chunk j, where a piece reads its A rows and writes its C rows, and whether a
// chunk's collective precedes its GEMMs (all-gather: the GEMMs of `independent` rows run
// first, waiting for nothing) or follows them.
struct OverlapPlan {
  int chunks = 1;
  int rows = 0;
  bool comm_first = false;
  int64_t gather_elems = 0;  // bf16 elements of the per-GPU scratch the all-gather lands in (0: none)
  std::function<std::vector<int>(int g)> independent;
  std::function<std::vector<int>(int j, int g)> pieces;
  // Element offsets of piece `row` of chunk j: its A rows in the gather scratch (-1: in A at
  // row x k) and its C rows in the GEMM's output (-1: at row x n).
  std::function<int64_t(int j, int row)> piece_in = [](int, int) { return int64_t(-1); };
  std::function<int64_t(int j, int row)> piece_out = [](int, int) { return int64_t(-1); };
  // Chunk j's collective on stream s of GPU g; `gathered`: g's gather scratch (or null).
  std::function<void(int j, int g, int ctas, bf16* gathered, cudaStream_t s)> comm;
};

class OverlapImpl : public Impl {
 public:
  OverlapImpl(Context& c, const Point& p, OverlapPlan plan) : Impl(c), plan_(std::move(plan)) {
    ctas_ = p.knob(knobs::comm_sms.name);
    const int sms = c.gpu(c.local_gpus().front()).sm_count;
    if (ctas_ >= sms) throw SkipPoint("comm_sms=" + std::to_string(ctas_) + " leaves cuBLASLt no SM");
    gemm_ = std::make_unique<GemmRunners>(c, true, plan_.rows, p.shape.n, p.shape.k, sms - ctas_);
    const bool ag = p.op == Op::ag_gemm;  // every piece has the shape of the first
    gemm_->tune([&c, ag](int g) { return GemmRunners::Operands{c.a(g), c.data(g).b, ag ? c.out(g) : c.partial(g)}; });
    compute_sms = sms - ctas_;
    comm_blocks = ctas_;
    algo = gemm_->algo();
    for (int g : c.local_gpus()) {
      c.group.set_device(g);
      Events& e = events_[g];
      e.chunk.resize(plan_.chunks);
      for (cudaEvent_t* ev : {&e.fork, &e.join}) PK_CUDA_CHECK(cudaEventCreateWithFlags(ev, cudaEventDisableTiming));
      for (auto& ev : e.chunk) PK_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
      if (plan_.gather_elems > 0) {
        PK_CUDA_CHECK(cudaMalloc(&e.gathered, size_t(plan_.gather_elems) * sizeof(bf16)));
        // NaN, not what an earlier point's run left at this address: the final check's inputs are
        // shared by every point of a shape (Context::fresh_inputs), so a gather that brought
        // nothing must not find them here.
        PK_CUDA_CHECK(cudaMemset(e.gathered, gemm::kPoisonByte, size_t(plan_.gather_elems) * sizeof(bf16)));
      }
    }
  }
  ~OverlapImpl() override {
    for (auto& [g, e] : events_) {
      ctx.group.set_device(g);
      cudaEventDestroy(e.fork);
      cudaEventDestroy(e.join);
      for (auto ev : e.chunk) cudaEventDestroy(ev);
      if (e.gathered) cudaFree(e.gathered);
    }
  }
  int enqueues_per_op() const override {
    return static_cast<int>(ctx.local_gpus().size()) * (plan_.chunks * (ctx.world() + 3) + 4);
  }

  void enqueue() override {
    const bool ag = ctx.op() == Op::ag_gemm;
    const int64_t k = ctx.shape().k, n = ctx.shape().n;
    auto gemm = [&](int g, int j, int row) {
      const int64_t in = plan_.piece_in(j, row), out = plan_.piece_out(j, row);
      const bf16* a = in < 0 ? ctx.a(g) + row * k : events_[g].gathered + in;
      bf16* cout = (ag ? ctx.out(g) : ctx.partial(g)) + (out < 0 ? row * n : out);
      gemm_->run(g, a, ctx.data(g).b, cout, ctx.stream(g, 0));
    };
    for (int g : ctx.local_gpus()) {  // the second stream starts behind the first (and its gate)
      ctx.group.set_device(g);
      PK_CUDA_CHECK(cudaEventRecord(events_[g].fork, ctx.stream(g, 0)));
      PK_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(g, 1), events_[g].fork));
    }
    // All-gather: every chunk's collective is queued before the independent GEMMs, so the
    // first gather never waits behind them on the host's enqueue order.
    if (plan_.comm_first)
      for (int j = 0; j < plan_.chunks; ++j) {
        ctx.nccl.group_start();
        for (int g : ctx.local_gpus()) {
          ctx.group.set_device(g);
          plan_.comm(j, g, ctas_, events_[g].gathered, ctx.stream(g, 1));
        }
        ctx.nccl.group_end();
        for (int g : ctx.local_gpus()) {
          ctx.group.set_device(g);
          PK_CUDA_CHECK(cudaEventRecord(events_[g].chunk[j], ctx.stream(g, 1)));
        }
      }
    for (int g : ctx.local_gpus())
      if (plan_.comm_first) {
        ctx.group.set_device(g);
        for (int row : plan_.independent(g)) gemm(g, -1, row);
      }
    for (int j = 0; j < plan_.chunks; ++j) {
      if (plan_.comm_first) {
        for (int g : ctx.local_gpus()) {
          ctx.group.set_device(g);
          PK_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(g, 0), events_[g].chunk[j]));
          for (int row : plan_.pieces(j, g)) gemm(g, j, row);
        }
        continue;
      }
      for (int g : ctx.local_gpus()) {
        ctx.group.set_device(g);
        for (int row : plan_.pieces(j, g)) gemm(g, j, row);
        PK_CUDA_CHECK(cudaEventRecord(events_[g].chunk[j], ctx.stream(g, 0)));
        PK_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(g, 1), events_[g].chunk[j]));
      }
      ctx.nccl.group_start();
      for (int g : ctx.local_gpus()) {
        ctx.group.set_device(g);
        plan_.comm(j, g, ctas_, events_[g].gathered, ctx.stream(g, 1));
      }
      ctx.nccl.group_end();
    }
    for (int g : ctx.local_gpus()) {  // the first stream ends behind the second
      ctx.group.set_device(g);
      PK_CUDA_CHECK(cudaEventRecord(events_[g].join, ctx.stream(g, 1)));
      PK_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(g, 0), events_[g].join));
    }
  }

 private:
  struct Events {
    cudaEvent_t fork = nullptr, join = nullptr;
    std::vector<cudaEvent_t> chunk;
    bf16* gathered = nullptr;  // the all-gather's landing scratch (cudaMalloc, this GPU's)
  };
  OverlapPlan plan_;
  int ctas_ = 0;
  std::unique_ptr<GemmRunners> gemm_;
  std::map<int, Events> events_;
};

// `total` rows cut into `chunks` equal chunks of plan.rows; a chunk count that does not
// divide them skips the point, naming the rows as `whole`.
OverlapPlan chunked_plan(int total, int chunks, const std::string& whole) {
  if (total % chunks) throw SkipPoint("chunks=" + std::to_string(chunks) + " does not divide " + whole);
  OverlapPlan plan;
  plan.chunks = chunks;
  plan.rows = total / chunks;
  return plan;
}

// RS and AG: chunk j = the j-th block of plan.rows rows of every shard.
struct ShardChunks {
  int world, shard, rows;
  int row(int s, int j) const { return s * shard + j * rows; }  // chunk j of shard s
};
OverlapPlan shard_chunked_plan(const Point& p, Context& c, ShardChunks& sc) {
  sc.world = c.world();
  sc.shard = p.shape.m / sc.world;
  OverlapPlan plan = chunked_plan(sc.shard, p.knob(knobs::chunks.name), "the " + std::to_string(sc.shard) + "-row shard");
  sc.rows = plan.rows;
  return plan;
}
// f(0), ..., f(count - 1): the row offsets of a chunk's GEMM pieces.
template <class F>
std::vector<int> rows_of(int count, F f) {
  std::vector<int> v;
  for (int i = 0; i < count; ++i) v.push_back(f(i));
  return v;
}

// GEMM+RS: chunk j = rows [j rows, (j+1) rows) of every shard. Its GEMM pieces write the
// partial chunk-major (piece s of chunk j at (j w + s) rows x n), so the chunk is one
// contiguous send buffer of w blocks, block s for rank s: one ncclReduceScatter per chunk,
// into rows j rows.. of this rank's output shard.
OverlapPlan gemm_rs_plan(const Point& p, Context& c) {
  ShardChunks sc;
  OverlapPlan plan = shard_chunked_plan(p, c, sc);
  const int64_t n = p.shape.n;
  plan.pieces = [sc](int j, int g) {  // rank g's own block last: the peers' blocks are needed first
    return rows_of(sc.world, [&](int d) { return sc.row((g + 1 + d) % sc.world, j); });
  };
  plan.piece_out = [sc, n](int j, int row) { return (int64_t(j) * sc.world + row / sc.shard) * sc.rows * n; };
  plan.comm = [&c, sc, n](int j, int g, int ctas, bf16*, cudaStream_t st) {
    c.nccl.reduce_scatter(g, ctas, c.partial(g) + int64_t(j) * sc.world * sc.rows * n,
                          c.out(g) + int64_t(j) * sc.rows * n, size_t(sc.rows) * n, st);
  };
  return plan;
}

// AG+GEMM: chunk j = rows [j rows, (j+1) rows) of every shard, gathered by one ncclAllGather
// into a chunk-major scratch (block s of chunk j at (j w + s) rows x k), then the GEMM pieces
// of the peers' blocks, each into its rows of C; this rank's own shard waits for nothing and
// runs first, beside the first gathers.
OverlapPlan ag_gemm_plan(const Point& p, Context& c) {
  ShardChunks sc;
  OverlapPlan plan = shard_chunked_plan(p, c, sc);
  const int64_t k = p.shape.k;
  plan.comm_first = true;
  plan.gather_elems = int64_t(p.shape.m) * k;
  plan.independent = [sc, chunks = plan.chunks](int g) { return rows_of(chunks, [&](int j) { return sc.row(g, j); }); };
  plan.pieces = [sc](int j, int g) { return rows_of(sc.world - 1, [&](int d) { return sc.row((g + 1 + d) % sc.world, j); }); };
  plan.piece_in = [sc, k](int j, int row) {
    return j < 0 ? int64_t(-1) : (int64_t(j) * sc.world + row / sc.shard) * sc.rows * k;
  };
  plan.comm = [&c, sc, k](int j, int g, int ctas, bf16* gathered, cudaStream_t st) {
    c.nccl.all_gather(g, ctas, c.a(g) + int64_t(sc.row(g, j)) * k, gathered + int64_t(j) * sc.world * sc.rows * k,
                      size_t(sc.rows) * k, st);
  };
  return plan;
}

// GEMM+AR: chunk j = rows [j M/chunks, (j+1) M/chunks): its GEMM, then ncclAllReduce of those rows.
OverlapPlan gemm_ar_plan(const Point& p, Context& c) {
  const int chunks = p.knob(knobs::chunks.name);
  OverlapPlan plan = chunked_plan(p.shape.m, chunks, "M=" + std::to_string(p.shape.m));
  const int rows = plan.rows;
  const int64_t n = p.shape.n;
  plan.pieces = [=](int j, int) { return std::vector<int>{j * rows}; };
  plan.comm = [&c, rows, n](int j, int g, int ctas, bf16*, cudaStream_t st) {
    const int64_t at = int64_t(j) * rows * n;
    c.nccl.all_reduce(g, ctas, c.partial(g) + at, c.out(g) + at, size_t(rows) * n, st);
  };
  return plan;
}

OverlapPlan overlap_plan(const Point& p, Context& c) {
  switch (p.op) {
    case Op::gemm_rs: return gemm_rs_plan(p, c);
    case Op::ag_gemm: return ag_gemm_plan(p, c);
    case Op::gemm_ar: return gemm_ar_plan(p, c);
  }
  throw std::logic_error("cublas_nccl_overlap: operator " + op_name(p.op) + " has no plan");
}

}  // namespace
}  // namespace pk::fused

PK_FUSED_FACTORY(cublas_nccl_overlap) {
  const OverlapPlan plan = overlap_plan(p, c);
  c.nccl.ensure(p.knob(knobs::comm_sms.name));  // collective: outside the per-rank part below
  std::unique_ptr<Impl> impl;
  collectively(c.group.comm(), [&] { impl = std::make_unique<OverlapImpl>(c, p, plan); });
  return impl;
}
#endif
