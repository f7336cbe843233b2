// broadcast, ours: `pull` (kernels/collectives/broadcast.cuh), every rank reads root 0's
// buffer through the peer table.
#include "kernels/collectives/broadcast.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

class BroadcastPull final : public PkImplOf<BroadcastPull> {
 public:
  std::string name() const override { return "pull"; }
  bool supports(int layout) const override { return layout == layout_of("broadcast"); }
  void prepare(const Problem& p, Context& ctx) override {
    const void* k = p.dtype == DType::bf16 ? reinterpret_cast<const void*>(broadcast_pull_kernel<__nv_bfloat16>)
                                           : reinterpret_cast<const void*>(broadcast_pull_kernel<float>);
    set_grid(ctx, k, BroadcastConfig::kThreads, 0,
             [&](int most) { return grid_for(p.bytes, BroadcastConfig::kBytesPerBlock, most); });
    build_params(ctx, p, p.count, 0, 0);
  }
  void enqueue(int gpu, cudaStream_t s) override {
    if (p_.dtype == DType::bf16)
      broadcast_pull_kernel<__nv_bfloat16><<<blocks_, threads_, 0, s>>>(pb_.at(gpu));
    else
      broadcast_pull_kernel<float><<<blocks_, threads_, 0, s>>>(pf_.at(gpu));
    PK_CUDA_CHECK_LAUNCH();
  }

 private:
  // Block-strided vectors: whole warps up to the launch bound (the signals need a thread per rank).
  std::pair<int, int> thread_range() const override { return {32, BroadcastConfig::kThreads}; }
};

}  // namespace

ImplList broadcast_impls() { return {std::make_shared<BroadcastPull>()}; }

}  // namespace pk::coll
