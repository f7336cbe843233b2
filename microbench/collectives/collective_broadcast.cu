// broadcast, ours (kernels/collectives/broadcast.cuh): `pull`, every rank reads root 0's
// buffer through the peer table; `ll`, the root pushes LL lines into every peer's landing
// lines (small messages); and each one's twin launched with programmatic dependent launch
// (`_pdl`: small messages are where a launch's start is a share of the time).
#include "kernels/collectives/broadcast.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

// A broadcast kernel's one parameter set and its launch, shared by both.
template <class D>
class BroadcastImpl : public PkImplOf<D> {
 public:
  bool supports(int layout) const override { return layout == layout_of("broadcast"); }
  void enqueue(int gpu, cudaStream_t s) override {
    void* params = this->p_.dtype == DType::bf16 ? static_cast<void*>(&this->pb_.at(gpu))
                                                 : static_cast<void*>(&this->pf_.at(gpu));
    this->launch_grid(kernel(this->p_.dtype), &params, s);
  }

 protected:
  virtual const void* kernel(DType t) const = 0;
  // Block-strided vectors or lines: whole warps up to the launch bound (the signals need a thread per rank).
  std::pair<int, int> thread_range() const override { return {32, BroadcastConfig::kThreads}; }
};

class BroadcastPull final : public BroadcastImpl<BroadcastPull> {
 public:
  std::string name() const override { return "pull" + pdl_suffix(); }
  void prepare(const Problem& p, Context& ctx) override {
    set_grid(ctx, kernel(p.dtype), BroadcastConfig::kThreads, 0,
             [&](int most) { return grid_for(p.bytes, BroadcastConfig::kBytesPerBlock, most); });
    build_params(ctx, p, p.count, 0, 0);
  }

 private:
  const void* kernel(DType t) const override {
    return t == DType::bf16 ? reinterpret_cast<const void*>(broadcast_pull_kernel<__nv_bfloat16>)
                            : reinterpret_cast<const void*>(broadcast_pull_kernel<float>);
  }
};

class BroadcastLl final : public BroadcastImpl<BroadcastLl> {
 public:
  // Every line doubles the bytes on the wire and the root sends n - 1 copies: small messages only.
  static constexpr uint64_t kMaxBytes = 4ull << 20;
  std::string name() const override { return "ll" + pdl_suffix(); }
  bool applies(const Problem& p) const override { return p.bytes <= kMaxBytes; }
  uint64_t scratch_bytes(const Problem& p) const override {
    return BroadcastLlConfig::scratch_bytes(p.count, p.elem_bytes());
  }
  void prepare(const Problem& p, Context& ctx) override {
    const uint64_t lines = BroadcastLlConfig::lines(p.count, p.elem_bytes());
    set_grid(ctx, kernel(p.dtype), BroadcastLlConfig::kThreads, 0,
             [&](int most) { return grid_for(lines, BroadcastLlConfig::kLinesPerBlock, most); });
    build_params(ctx, p, p.count, 0, 0);
    // Stale lines of another point must not carry a valid epoch. On the kernel's own stream,
    // finished before returning: the study's barrier then orders it before the root's push.
    for (int gpu : ctx.group.local_gpus()) {
      ctx.group.set_device(gpu);
      PK_CUDA_CHECK(cudaMemsetAsync(ctx.scratch.local(gpu), 0, scratch_bytes(p), ctx.stream(gpu)));
      PK_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(gpu)));
    }
  }

 private:
  const void* kernel(DType t) const override {
    return t == DType::bf16 ? reinterpret_cast<const void*>(broadcast_ll_kernel<__nv_bfloat16>)
                            : reinterpret_cast<const void*>(broadcast_ll_kernel<float>);
  }
};

}  // namespace

ImplList broadcast_impls() {
  auto pull = std::make_shared<BroadcastPull>();
  auto ll = std::make_shared<BroadcastLl>();
  return {pull, ll, pull->pdl_twin(), ll->pdl_twin()};
}

}  // namespace pk::coll
