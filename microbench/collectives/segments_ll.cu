// All-gather, reduce-scatter and all-to-all (plain layouts) for small messages by the
// low-latency protocol (kernels/collectives/segments_ll.cuh): the flag rides in the data
// word, so no barrier before or after the data, one NVLink trip per message.
#include "kernels/collectives/segments_ll.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

// Above this per-rank block (count elements) the doubled wire bytes of LL lines cost more
// than the barriers `push` pays: LL serves small messages only.
constexpr uint64_t kLlMaxBlockBytes = 1ull << 20;

class SegmentLlImpl final : public PkImplOf<SegmentLlImpl> {
 public:
  std::string name() const override { return "ll" + pdl_suffix(); }
  bool supports(int layout) const override {
    return layout == kAllGather || layout == kReduceScatter || layout == kAllToAll;
  }
  bool applies(const Problem& p) const override { return p.count * p.elem_bytes() <= kLlMaxBlockBytes; }
  uint64_t scratch_bytes(const Problem& p) const override {
    return LlSegConfig::scratch_bytes(p.count, p.elem_bytes(), p.n);
  }
  void prepare(const Problem& p, Context& ctx) override {
    const void* k = p.dtype == DType::bf16 ? reinterpret_cast<const void*>(segments_ll_kernel<__nv_bfloat16>)
                                           : reinterpret_cast<const void*>(segments_ll_kernel<float>);
    // Blocks by the lines one rank pushes (every peer's block); both phases stride the grid.
    const uint64_t lines = LlSegConfig::lines(p.count, p.elem_bytes());
    set_grid(ctx, k, LlSegConfig::kThreads, 0, [&](int most) {
      return grid_for(static_cast<uint64_t>(std::max(1, p.n - 1)) * lines, LlSegConfig::kLinesPerBlock, most);
    });
    build_params(ctx, p, p.count, 0, 0);
    // Stale lines of another point must not carry a valid epoch. On the kernel's own stream,
    // finished before returning: the study's barrier then orders it before any peer's push.
    for (int gpu : ctx.group.local_gpus()) {
      ctx.group.set_device(gpu);
      PK_CUDA_CHECK(cudaMemsetAsync(ctx.scratch.local(gpu), 0, scratch_bytes(p), ctx.stream(gpu)));
      PK_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(gpu)));
    }
  }
  void enqueue(int gpu, cudaStream_t s) override {
    int layout = p_.layout;
    void* args[2] = {p_.dtype == DType::bf16 ? static_cast<void*>(&pb_.at(gpu)) : static_cast<void*>(&pf_.at(gpu)),
                     &layout};
    launch_grid(p_.dtype == DType::bf16 ? reinterpret_cast<const void*>(segments_ll_kernel<__nv_bfloat16>)
                                   : reinterpret_cast<const void*>(segments_ll_kernel<float>),
           args, s);
  }
  std::string config() const override {
    return PkImpl::config() + (LlSegConfig::whole_lines(p_.count, p_.elem_bytes()) ? " 8B" : " scalar");
  }

 private:
  // Grid-strided lines: whole warps up to the launch bound.
  std::pair<int, int> thread_range() const override { return {32, LlSegConfig::kThreads}; }
};

}  // namespace

// ll, and its twin launched with programmatic dependent launch (small messages: the launch is
// a share of the time).
ImplList segment_ll_impls() {
  auto ll = std::make_shared<SegmentLlImpl>();
  return {ll, ll->pdl_twin()};
}

}  // namespace pk::coll
