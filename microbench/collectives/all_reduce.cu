// All-reduce: our device-initiated algorithms, each registered by its file ar_*.cu and its
// line in ar_list.h (ar_algorithm.h), turned into implementations here. The NCCL baselines
// come from coll_nccl_impl.cu; the harness times and checks them alike.
#include "kernels/collectives/allreduce_tma.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/ar_algorithm.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {

#define PK_ALL_REDUCE(name) const ArAlgorithm& ar_##name();
#include "microbench/collectives/ar_list.h"
#undef PK_ALL_REDUCE

const std::vector<ArEntry>& all_reduce_algorithms() {
  static const std::vector<ArEntry> all = {
#define PK_ALL_REDUCE(name) {#name, &ar_##name()},
#include "microbench/collectives/ar_list.h"
#undef PK_ALL_REDUCE
  };
  return all;
}

uint64_t ArAlgorithm::chunk_slot_elems(const Problem& p) {
  const uint64_t v = 16 / p.elem_bytes();
  const Chunk c = chunk_of(p.count, p.n, 0, static_cast<int>(v));
  const uint64_t a = TmaConfig::kTileBytes / p.elem_bytes();
  return (c.hi - c.lo + a - 1) / a * a;
}

namespace {

class AllReduceImpl final : public PkImplOf<AllReduceImpl> {
 public:
  explicit AllReduceImpl(const ArEntry& e) : name_(e.name), a_(e.algo) {}
  std::string name() const override { return name_ + pdl_suffix(); }
  bool supports(int layout) const override { return layout == kAllReduce; }
  bool applies(const Problem& p) const override { return a_->applies(p); }
  bool uses_tma() const override { return a_->uses_tma(); }
  uint64_t scratch_bytes(const Problem& p) const override {  // for the largest grid prepare() can choose
    return a_->scratch_bytes(p, knobs_.sms ? knobs_.sms : grid_for(a_->work_bytes(p), a_->bytes_per_block(), kMaxBlocks));
  }
  void prepare(const Problem& p, Context& ctx) override {
    smem_ = a_->smem_bytes();
    const uint64_t work = a_->work_bytes(p);
    set_grid(ctx, a_->kernels().of(p.dtype), a_->threads(), smem_,
             [&](int most) { return grid_for(work, a_->bytes_per_block(), most); });
    build_params(ctx, p, p.count, a_->slot_elems(p), a_->handshake(), a_->rounds(p, blocks_));
    if (a_->zero_scratch())
      for (int gpu : ctx.group.local_gpus()) {
        ctx.group.set_device(gpu);
        PK_CUDA_CHECK(cudaMemsetAsync(ctx.scratch.local(gpu), 0, scratch_bytes(p), ctx.stream(gpu)));  // ordered before the harness's fills and launches
      }
  }
  // The kernel the algorithm names, with this GPU's parameters (what <<<>>> does, without a
  // switch over the algorithms).
  void enqueue(int gpu, cudaStream_t s) override {
    void* params = p_.dtype == DType::bf16 ? static_cast<void*>(&pb_.at(gpu)) : static_cast<void*>(&pf_.at(gpu));
    launch_grid(a_->kernels().of(p_.dtype), &params, s);
  }

 private:
  // Whole warps up to the kernel's launch bound (its default; the kernels stride by
  // blockDim). The TMA kernel's elected issuer is in warp 0, the signals need a thread per
  // rank: one warp is enough for both.
  std::pair<int, int> thread_range() const override { return {32, a_->threads()}; }
  std::string name_;
  const ArAlgorithm* a_;
};

}  // namespace

// Every listed algorithm, then the PDL twins of those that have one (in the list's order).
ImplList all_reduce_impls() {
  ImplList v = impls_of<AllReduceImpl>(all_reduce_algorithms());
  for (const ArEntry& e : all_reduce_algorithms())
    if (e.algo->pdl_twin()) v.push_back(AllReduceImpl(e).pdl_twin());
  return v;
}

}  // namespace pk::coll
