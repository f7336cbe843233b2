// All-gather, reduce-scatter and all-to-all (plain layouts) for large messages: warp 0 of
// each block pushes by bulk copies while the other warps copy or sum locally
// (kernels/collectives/segments_tma.cuh).
#include <utility>

#include "kernels/collectives/segments_tma.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

// Below this a rank's block is a few tiles: the push and LL kernels serve it.
constexpr uint64_t kTmaMinBlockBytes = 64 * 1024;

// The kernel's kind of each layout it serves; -1: not served.
int kind_of(int layout) {
  static constexpr std::pair<int, int> kKinds[] = {
      {kAllGather, kTmaGather}, {kReduceScatter, kTmaReduceScatter}, {kAllToAll, kTmaAllToAll}};
  for (const auto& [l, kind] : kKinds)
    if (l == layout) return kind;
  return -1;
}

// Reduce-scatter landing slots: one block per source, padded to whole 16-B vectors.
uint64_t slot_elems(const Problem& p) {
  const uint64_t v = 16 / p.elem_bytes();
  return (p.count + v - 1) / v * v;
}

template <class T>
void launch(const CollParams<T>& p, int kind, int blocks, cudaStream_t s) {
  segments_tma_kernel<T><<<blocks, SegTmaConfig::kThreads, SegTmaConfig::smem_bytes(), s>>>(p, kind);
  PK_CUDA_CHECK_LAUNCH();
}

class SegmentTmaImpl final : public PkImplOf<SegmentTmaImpl> {
 public:
  std::string name() const override { return "push_tma"; }
  bool uses_tma() const override { return true; }
  bool supports(int layout) const override { return kind_of(layout) >= 0; }
  bool applies(const Problem& p) const override { return p.count * p.elem_bytes() >= kTmaMinBlockBytes; }
  uint64_t scratch_bytes(const Problem& p) const override {
    return p.layout == kReduceScatter ? 2ull * p.n * slot_elems(p) * p.elem_bytes() : 0;
  }
  void prepare(const Problem& p, Context& ctx) override {
    smem_ = SegTmaConfig::smem_bytes();
    const void* k = p.dtype == DType::bf16 ? reinterpret_cast<const void*>(segments_tma_kernel<__nv_bfloat16>)
                                           : reinterpret_cast<const void*>(segments_tma_kernel<float>);
    for (int gpu : ctx.group.local_gpus()) {
      ctx.group.set_device(gpu);
      PK_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_)));
    }
    set_grid(ctx, k, SegTmaConfig::kThreads, smem_,
             [&](int most) { return grid_for(p.count * p.elem_bytes(), SegTmaConfig::kBytesPerBlock, most); });
    build_params(ctx, p, p.count, p.layout == kReduceScatter ? slot_elems(p) : 0, 0);
  }
  void enqueue(int gpu, cudaStream_t s) override {
    const int kind = kind_of(p_.layout);
    if (p_.dtype == DType::bf16)
      launch(pb_.at(gpu), kind, blocks_, s);
    else
      launch(pf_.at(gpu), kind, blocks_, s);
  }

 private:
  // The kernel's warp roles are compiled for its block (one issuing warp, kLocalThreads
  // summing): the grid is a knob, the threads are not.
  std::pair<int, int> thread_range() const override { return {SegTmaConfig::kThreads, SegTmaConfig::kThreads}; }
};

}  // namespace

ImplList segment_tma_impls() { return {std::make_shared<SegmentTmaImpl>()}; }

}  // namespace pk::coll
