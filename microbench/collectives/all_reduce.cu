// All-reduce: our device-initiated algorithms (kernels/collectives/allreduce_*.cuh). The
// NCCL baselines come from coll_nccl_impl.cu; the harness times and checks them alike.
#include "../../kernels/collectives/allreduce_ll.cuh"
#include "../../kernels/collectives/allreduce_one_shot.cuh"
#include "../../kernels/collectives/allreduce_staged.cuh"
#include "../../kernels/collectives/allreduce_tma.cuh"
#include "../../kernels/collectives/allreduce_two_shot.cuh"
#include "../harness/cuda_check.h"
#include "coll_harness.h"

namespace pk::coll {
namespace {

enum class ArAlgo {
  one_shot,
  two_shot_push,
  two_shot_pull,
  ll,
  two_shot_tma,
  two_shot_push_handshake,
  two_shot_staged,  // ablation (d), and (b)+(d) with the handshake
};

struct ArAlgoInfo {
  ArAlgo algo;
  const char* name;
  int threads;
  uint64_t bytes_per_block;  // of the work one block's slice covers (see work_bytes)
  bool per_chunk;            // the blocks split one chunk (two-shot) rather than the vector
  bool slots;                // uses the two-shot landing slots
  bool handshake = false;    // ablation (b): a two-way handshake before each phase
};

// Declared once: every other table derives from this one.
constexpr ArAlgoInfo kAlgos[] = {
    {ArAlgo::one_shot, "one_shot", OneShotConfig::kThreads, OneShotConfig::kBytesPerBlock, false, false},
    {ArAlgo::two_shot_push, "two_shot_push", TwoShotConfig::kThreads, TwoShotConfig::kBytesPerBlock, true, true},
    {ArAlgo::two_shot_pull, "two_shot_pull", TwoShotConfig::kThreads, TwoShotConfig::kBytesPerBlock, true, false},
    {ArAlgo::ll, "ll", LlConfig::kThreads, LlConfig::kLinesPerBlock * LlConfig::kLineBytes, false, false},
    {ArAlgo::two_shot_tma, "two_shot_tma", TmaConfig::kThreads, TmaConfig::kBytesPerBlock, true, true},
    {ArAlgo::two_shot_push_handshake, "two_shot_push_handshake", TwoShotConfig::kThreads,
     TwoShotConfig::kBytesPerBlock, true, true, true},
    {ArAlgo::two_shot_staged, "two_shot_push_staged", StagedConfig::kThreads, StagedConfig::kBytesPerBlock, true,
     false},
    {ArAlgo::two_shot_staged, "two_shot_push_handshake_staged", StagedConfig::kThreads, StagedConfig::kBytesPerBlock,
     true, false, true},
};

// The LL protocol doubles the bytes on the wire: it serves small messages only.
constexpr uint64_t kLlMaxBytes = 4ull << 20;
// Landing slots are padded to a whole number of TMA tiles (16-B aligned for every kernel).
constexpr uint64_t kSlotAlignBytes = TmaConfig::kTileBytes;

uint64_t slot_elems(const Problem& p) {
  const uint64_t v = 16 / p.elem_bytes();
  const Chunk c = chunk_of(p.count, p.n, 0, static_cast<int>(v));
  const uint64_t a = kSlotAlignBytes / p.elem_bytes();
  return (c.hi - c.lo + a - 1) / a * a;
}

template <class T>
const void* kernel_of(ArAlgo a) {
  switch (a) {
    case ArAlgo::one_shot: return reinterpret_cast<const void*>(all_reduce_one_shot_kernel<T>);
    case ArAlgo::two_shot_pull: return reinterpret_cast<const void*>(all_reduce_two_shot_pull_kernel<T>);
    case ArAlgo::ll: return reinterpret_cast<const void*>(all_reduce_ll_kernel<T>);
    case ArAlgo::two_shot_tma: return reinterpret_cast<const void*>(all_reduce_two_shot_tma_kernel<T>);
    case ArAlgo::two_shot_staged: return reinterpret_cast<const void*>(all_reduce_two_shot_staged_kernel<T>);
    default: return reinterpret_cast<const void*>(all_reduce_two_shot_push_kernel<T>);
  }
}

template <class T>
void launch(ArAlgo a, const CollParams<T>& p, int blocks, int threads, size_t smem, cudaStream_t s) {
  switch (a) {
    case ArAlgo::one_shot: all_reduce_one_shot_kernel<T><<<blocks, threads, 0, s>>>(p); break;
    case ArAlgo::two_shot_pull: all_reduce_two_shot_pull_kernel<T><<<blocks, threads, 0, s>>>(p); break;
    case ArAlgo::ll: all_reduce_ll_kernel<T><<<blocks, threads, 0, s>>>(p); break;
    case ArAlgo::two_shot_tma: all_reduce_two_shot_tma_kernel<T><<<blocks, threads, smem, s>>>(p); break;
    case ArAlgo::two_shot_staged: all_reduce_two_shot_staged_kernel<T><<<blocks, threads, 0, s>>>(p); break;
    default: all_reduce_two_shot_push_kernel<T><<<blocks, threads, 0, s>>>(p); break;
  }
  PK_CUDA_CHECK_LAUNCH();
}

class AllReduceImpl final : public PkImplOf<AllReduceImpl> {
 public:
  explicit AllReduceImpl(const ArAlgoInfo& a) : a_(a) {}
  std::string name() const override { return a_.name; }
  bool supports(int layout) const override { return layout == kAllReduce; }
  bool applies(const Problem& p) const override { return a_.algo != ArAlgo::ll || p.bytes <= kLlMaxBytes; }
  uint64_t scratch_bytes(const Problem& p) const override {
    if (a_.algo == ArAlgo::ll) return LlConfig::scratch_bytes(p.count, p.elem_bytes(), p.n);
    if (a_.algo == ArAlgo::two_shot_staged)  // the FIFOs of the largest grid prepare() can choose
      return StagedConfig::fifo_bytes(p.n, knobs_.sms ? knobs_.sms : grid_for(p.bytes / p.n, a_.bytes_per_block, kMaxBlocks));
    return a_.slots ? static_cast<uint64_t>(p.n) * slot_elems(p) * p.elem_bytes() : 0;
  }
  void prepare(const Problem& p, Context& ctx) override {
    smem_ = a_.algo == ArAlgo::two_shot_tma ? TmaConfig::smem_bytes() : 0;
    const void* k = p.dtype == DType::bf16 ? kernel_of<__nv_bfloat16>(a_.algo) : kernel_of<float>(a_.algo);
    const uint64_t work = a_.algo == ArAlgo::ll ? LlConfig::lines(p.count, p.elem_bytes()) * LlConfig::kLineBytes
                          : a_.per_chunk       ? p.bytes / p.n
                                               : p.bytes;
    set_grid(ctx, k, a_.threads, smem_, [&](int most) { return grid_for(work, a_.bytes_per_block, most); });
    build_params(ctx, p, p.count, slot_elems(p), a_.handshake ? 1 : 0);
    if (a_.algo == ArAlgo::ll)  // stale lines of another point must not carry a valid epoch
      for (int gpu : ctx.group.local_gpus()) {
        ctx.group.set_device(gpu);
        PK_CUDA_CHECK(cudaMemsetAsync(ctx.scratch.local(gpu), 0, scratch_bytes(p), ctx.stream(gpu)));  // ordered before the harness's fills and launches
      }
  }
  void enqueue(int gpu, cudaStream_t s) override {
    if (p_.dtype == DType::bf16)
      launch(a_.algo, pb_.at(gpu), blocks_, threads_, smem_, s);
    else
      launch(a_.algo, pf_.at(gpu), blocks_, threads_, smem_, s);
  }

 private:
  // Whole warps up to the kernel's launch bound (its default; the kernels stride by
  // blockDim). The TMA kernel's elected issuer is in warp 0, the signals need a thread per
  // rank: one warp is enough for both.
  std::pair<int, int> thread_range() const override { return {32, a_.threads}; }
  ArAlgoInfo a_;
};

}  // namespace

ImplList all_reduce_impls() {
  ImplList v;
  for (const ArAlgoInfo& a : kAlgos) v.push_back(std::make_shared<AllReduceImpl>(a));
  return v;
}

}  // namespace pk::coll
