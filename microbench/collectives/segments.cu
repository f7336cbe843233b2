// All-gather, reduce-scatter and all-to-all, plain and along the tensor dimension
// (Figures 15-17), by direct pushes over the strided layout
// (kernels/collectives/push_segments.cuh): no reshape copy, every byte crosses NVLink once.
// Three variants, declared once below (kVariants):
//   push          all-gather / all-to-all straight into the peers' outputs between an enter
//                 and a leave exchange; reduce-scatter into landing slots, then the sum
//   push_landing  all-gather / all-to-all (plain layouts) into the peers' landing slots, a data
//                 flag per (block, peer) and the receiver's own copy: no barrier; 2-KiB items,
//                 so every warp of a block has one at 1-16 MiB
//   push_rounds   reduce-scatter in rounds: the sum of round r - 1 overlaps round r's pushes
#include <algorithm>

#include "kernels/collectives/push_segments.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

// Landing slots: one output-sized slot per source (reduce-scatter) or one rank block per
// source (landing all-gather / all-to-all), padded to 16 B, two epoch parities.
uint64_t slot_elems_of(const Problem& p, uint64_t elems) {
  const uint64_t v = 16 / p.elem_bytes();
  return (elems + v - 1) / v * v;
}

enum class SegKernel { push, landing, reduce };

struct SegVariant {
  const char* name;
  uint64_t piece_bytes;  // one warp's item
  bool landing;          // all-gather / all-to-all through landing slots (plain layouts)
  bool rounds;           // reduce-scatter pipelined in rounds of kRoundItems items per block
};
// The landing variant serves per-rank blocks up to kLandingMaxBlockBytes (its scratch is two
// parities of n blocks); rounds of kRoundItems items (128 KiB per peer at 8-KiB items), at
// least two (the GPU tests' odd counts then take the pipelined path).
constexpr SegVariant kVariants[] = {
    {"push", SegConfig::kPieceBytes, false, false},
    {"push_landing", 2048, true, false},
    {"push_rounds", SegConfig::kPieceBytes, false, true},
};
constexpr uint64_t kLandingMaxBlockBytes = 16ull << 20;
constexpr uint64_t kRoundItems = 16;
constexpr int kMaxRounds = 64;

class SegmentImpl final : public PkImplOf<SegmentImpl> {
 public:
  explicit SegmentImpl(const SegVariant& v) : v_(v) {}
  std::string name() const override { return v_.name + pdl_suffix(); }
  bool supports(int layout) const override {
    if (v_.landing) return layout == kAllGather || layout == kAllToAll;
    if (v_.rounds) return layout == kReduceScatter || layout == kReduceScatterCols;
    return layout == kAllGather || layout == kReduceScatter || layout == kAllToAll || layout == kAllGatherCols ||
           layout == kReduceScatterCols || layout == kAllToAll4d;
  }
  bool applies(const Problem& p) const override {
    return !v_.landing || p.count * p.elem_bytes() <= kLandingMaxBlockBytes;
  }
  uint64_t scratch_bytes(const Problem& p) const override {
    if (layout_reduces(p.layout)) return 2ull * p.n * slot_elems_of(p, p.out_elems) * p.elem_bytes();
    return v_.landing ? 2ull * p.n * slot_elems_of(p, p.count) * p.elem_bytes() : 0;
  }
  void prepare(const Problem& p, Context& ctx) override {
    L_ = direct_layout(p, v_.piece_bytes);
    kernel_ = layout_reduces(p.layout) ? SegKernel::reduce : v_.landing ? SegKernel::landing : SegKernel::push;
    // Enough blocks for the bytes one rank sends, never more than there are items.
    set_grid(ctx, kernel(p.dtype), SegConfig::kThreads, 0, [&](int most) {
      return std::min<int>(grid_for(p.in_elems * p.elem_bytes(), SegConfig::kBytesPerBlock, most),
                           static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>(L_.items(), kMaxBlocks))));
    });
    int rounds = 1;
    if (v_.rounds) {
      const uint64_t per_block = (L_.items() + blocks_ - 1) / blocks_;
      rounds = static_cast<int>(std::clamp<uint64_t>((per_block + kRoundItems - 1) / kRoundItems, 2, kMaxRounds));
    }
    const uint64_t slots = kernel_ == SegKernel::reduce    ? slot_elems_of(p, p.out_elems)
                           : kernel_ == SegKernel::landing ? slot_elems_of(p, p.count)
                                                           : 0;
    build_params(ctx, p, p.count, slots, 0, rounds);
  }
  void enqueue(int gpu, cudaStream_t s) override {
    void* args[2] = {p_.dtype == DType::bf16 ? static_cast<void*>(&pb_.at(gpu)) : static_cast<void*>(&pf_.at(gpu)), &L_};
    launch_grid(kernel(p_.dtype), args, s);
  }
  std::string config() const override {
    return PkImpl::config() + (L_.vec ? " 16B" : " scalar");
  }

 private:
  const void* kernel(DType t) const {
    const bool bf = t == DType::bf16;
    switch (kernel_) {
      case SegKernel::reduce:
        return bf ? reinterpret_cast<const void*>(reduce_scatter_segments_kernel<__nv_bfloat16>)
                  : reinterpret_cast<const void*>(reduce_scatter_segments_kernel<float>);
      case SegKernel::landing:
        return bf ? reinterpret_cast<const void*>(push_landing_kernel<__nv_bfloat16>)
                  : reinterpret_cast<const void*>(push_landing_kernel<float>);
      case SegKernel::push: break;
    }
    return bf ? reinterpret_cast<const void*>(push_segments_kernel<__nv_bfloat16>)
              : reinterpret_cast<const void*>(push_segments_kernel<float>);
  }
  // A warp copies an item: whole warps up to the launch bound.
  std::pair<int, int> thread_range() const override { return {32, SegConfig::kThreads}; }
  SegVariant v_;
  SegLayout L_{};
  SegKernel kernel_ = SegKernel::push;
};

}  // namespace

ImplList segment_impls() {
  ImplList v = impls_of<SegmentImpl>(kVariants);
  for (auto& l : {segment_ll_impls(), segment_tma_impls()}) v.insert(v.end(), l.begin(), l.end());
  return v;
}

}  // namespace pk::coll
