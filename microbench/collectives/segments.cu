// All-gather, reduce-scatter and all-to-all, plain and along the tensor dimension
// (Figures 15-17), by direct pushes over the strided layout
// (kernels/collectives/push_segments.cuh): no reshape copy, every byte crosses NVLink once.
#include "kernels/collectives/push_segments.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

// Reduce-scatter landing slots: one output-sized slot per source, padded to 16 B.
uint64_t rs_slot_elems(const Problem& p) {
  const uint64_t v = 16 / p.elem_bytes();
  return (p.out_elems + v - 1) / v * v;
}

class SegmentImpl final : public PkImplOf<SegmentImpl> {
 public:
  std::string name() const override { return "push"; }
  bool supports(int layout) const override {
    return layout == kAllGather || layout == kReduceScatter || layout == kAllToAll || layout == kAllGatherCols ||
           layout == kReduceScatterCols || layout == kAllToAll4d;
  }
  uint64_t scratch_bytes(const Problem& p) const override {
    return layout_reduces(p.layout) ? 2ull * p.n * rs_slot_elems(p) * p.elem_bytes() : 0;
  }
  void prepare(const Problem& p, Context& ctx) override {
    L_ = direct_layout(p, SegConfig::kPieceBytes);
    red_ = layout_reduces(p.layout);
    const void* k = p.dtype == DType::bf16
                        ? (red_ ? reinterpret_cast<const void*>(reduce_scatter_segments_kernel<__nv_bfloat16>)
                               : reinterpret_cast<const void*>(push_segments_kernel<__nv_bfloat16>))
                        : (red_ ? reinterpret_cast<const void*>(reduce_scatter_segments_kernel<float>)
                               : reinterpret_cast<const void*>(push_segments_kernel<float>));
    // Enough blocks for the bytes one rank sends, never more than there are items.
    set_grid(ctx, k, SegConfig::kThreads, 0, [&](int most) {
      return std::min<int>(grid_for(p.in_elems * p.elem_bytes(), SegConfig::kBytesPerBlock, most),
                           static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>(L_.items(), kMaxBlocks))));
    });
    build_params(ctx, p, p.count, red_ ? rs_slot_elems(p) : 0, 0);
  }
  void enqueue(int gpu, cudaStream_t s) override {
    if (p_.dtype == DType::bf16) {
      if (red_)
        reduce_scatter_segments_kernel<__nv_bfloat16><<<blocks_, threads_, 0, s>>>(pb_.at(gpu), L_);
      else
        push_segments_kernel<__nv_bfloat16><<<blocks_, threads_, 0, s>>>(pb_.at(gpu), L_);
    } else {
      if (red_)
        reduce_scatter_segments_kernel<float><<<blocks_, threads_, 0, s>>>(pf_.at(gpu), L_);
      else
        push_segments_kernel<float><<<blocks_, threads_, 0, s>>>(pf_.at(gpu), L_);
    }
    PK_CUDA_CHECK_LAUNCH();
  }
  std::string config() const override {
    return PkImpl::config() + (L_.vec ? " 16B" : " scalar");
  }

 private:
  // A warp copies an item: whole warps up to the launch bound.
  std::pair<int, int> thread_range() const override { return {32, SegConfig::kThreads}; }
  SegLayout L_{};
  bool red_ = false;  // the collective reduces (its declaration's reference sums): the landing-slot kernel
};

}  // namespace

ImplList segment_impls() {
  ImplList v = {std::make_shared<SegmentImpl>()};
  for (auto& l : {segment_ll_impls(), segment_tma_impls()}) v.insert(v.end(), l.begin(), l.end());
  return v;
}

}  // namespace pk::coll
