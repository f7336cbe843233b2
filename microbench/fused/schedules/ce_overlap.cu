// Baseline (AG+GEMM only): the copy engine gathers A's row shards chunk by chunk beside this
// suite's GEMM on every SM, which waits per chunk (Flux-style all-gather).
#include <cuda.h>

#include "microbench/fused/schedule.h"

PK_FUSED_DECLARATION(ce_overlap,
                     {.kind = Kind::baseline,
                      .summary = "the copy engine pulls each chunk of the peers' shards (cudaMemcpyAsync + "
                                 "cuStreamWriteValue32) while this suite's GEMM waits per chunk on every SM (Flux-style "
                                 "all-gather)",
                      .ops = {Op::ag_gemm},
                      .knobs = {{&knobs::chunks, "4"}}})

#ifdef PK_FUSED_FACTORIES
#include "microbench/harness/driver_api.h"

namespace pk::fused {
namespace {

// cuStreamWriteValue32 through the runtime's driver entry point (no libcuda link), like
// microbench/harness/driver_api.cpp does for its table.
using WriteValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
WriteValue32 write_value32() {
  static const WriteValue32 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &f, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !f) {
      cudaGetLastError();
      throw CudaError(std::string("driver entry point cuStreamWriteValue32 is not available (") + cudaGetErrorString(e) + ")");
    }
    return reinterpret_cast<WriteValue32>(f);
  }();
  return fn;
}

// The copy engine pulls every chunk of every peer's shard (cudaMemcpyAsync on a second
// stream) and, behind each copy, writes the chunk's flag (cuStreamWriteValue32 with its
// default memory barrier); this suite's AG GEMM runs on every SM and waits per tile row for
// its chunk's flag: AgPullOps with no communicator blocks and rows_per_flag = a chunk. The
// flag value is the launch's epoch, counted here on the host: the kernel's device epochs
// and this count both start at the instance's creation and grow once per operation.
class CeOverlapImpl : public Impl {
 public:
  CeOverlapImpl(Context& c, const Point& p, const SyncRegion& sync, int chunk_tiles) : Impl(c), chunk_tiles_(chunk_tiles) {
    const Shape& s = p.shape;
    shard_tiles_ = s.m / kTileM / c.world();
    chunks_ = shard_tiles_ / chunk_tiles;
    sms_ = sm_split(c, p).first;
    collectively(c.group.comm(), [] { write_value32(); });
    params_ = prepare_fused(c, p, KernelKind::ag_pull, sync, sms_, 0);
    collectively(c.group.comm(), [&] {
      for (auto& [g, fp] : params_) {
        c.group.set_device(g);
        fp.rows_per_flag = chunk_tiles;
        PerGpu& x = gpus_[g];
        x.flags = fp.sync.flags.local();
        PK_CUDA_CHECK(cudaEventCreateWithFlags(&x.fork, cudaEventDisableTiming));
        PK_CUDA_CHECK(cudaEventCreateWithFlags(&x.join, cudaEventDisableTiming));
      }
    });
    compute_sms = sms_;
    group_m = params_.begin()->second.group_m;
    tile_order = "shard_arrival";
  }
  ~CeOverlapImpl() override {
    for (auto& [g, x] : gpus_) {
      ctx.group.set_device(g);
      cudaEventDestroy(x.fork);
      cudaEventDestroy(x.join);
    }
  }
  int enqueues_per_op() const override {
    return static_cast<int>(ctx.local_gpus().size()) * (2 * (ctx.world() - 1) * chunks_ + 5);
  }
  void enqueue() override {
    const int w = ctx.world();
    const int64_t k = ctx.shape().k, rows = int64_t(chunk_tiles_) * kTileM;
    for (int g : ctx.local_gpus()) {
      ctx.group.set_device(g);
      PerGpu& x = gpus_[g];
      const cuuint32_t e = static_cast<cuuint32_t>(++x.epoch);
      cudaStream_t s1 = ctx.stream(g, 0), s2 = ctx.stream(g, 1);
      PK_CUDA_CHECK(cudaEventRecord(x.fork, s1));
      PK_CUDA_CHECK(cudaStreamWaitEvent(s2, x.fork));
      const PeerTable<bf16> a = ctx.a_table(g);
      for (int d = 1; d < w; ++d) {  // the order the kernel consumes them: shard g+1, g+2, ...
        const int s = (g + d) % w;
        for (int j = 0; j < chunks_; ++j) {
          const int64_t at = (int64_t(s) * shard_tiles_ + int64_t(j) * chunk_tiles_) * kTileM * k;
          PK_CUDA_CHECK(cudaMemcpyAsync(ctx.a(g) + at, a.at[s] + at, rows * k * 2, cudaMemcpyDeviceToDevice, s2));
          const int flag = s * chunks_ + j;  // shard_tiles_ = chunks_ * chunk_tiles_
          PK_CU_CHECK(write_value32()(s2, reinterpret_cast<CUdeviceptr>(x.flags + flag), e, 0));
        }
      }
      PK_CUDA_CHECK(cudaEventRecord(x.join, s2));
      launch_kernel(KernelKind::ag_pull, params_.at(g), sms_, s1);
      PK_CUDA_CHECK(cudaStreamWaitEvent(s1, x.join));
    }
  }

 private:
  struct PerGpu {
    int* flags = nullptr;
    int epoch = 0;
    cudaEvent_t fork = nullptr, join = nullptr;
  };
  int chunk_tiles_, shard_tiles_ = 0, chunks_ = 0, sms_ = 0;
  std::map<int, FusedParams> params_;
  std::map<int, PerGpu> gpus_;
};

}  // namespace
}  // namespace pk::fused

PK_FUSED_FACTORY(ce_overlap) {
  // Measured on one H100: virtual ranks' copy-engine copies beside the spinning GEMMs time
  // out (8 ranks in the GPU test; 2 ranks at N = 4096 in the study); the ranks of one GPU
  // share its copy engines. Cause not measured further.
  if (c.group.is_virtual())
    throw SkipPoint("ce_overlap is not run with virtual ranks: their copy-engine copies timed out on one GPU (H100)");
  const int shard_tiles = p.shape.m / c.world() / kTileM, chunks = p.knob(knobs::chunks.name);
  if (shard_tiles % chunks)
    throw SkipPoint("chunks=" + std::to_string(chunks) + " does not divide the shard's " + std::to_string(shard_tiles) + " tile rows");
  const SyncRegion sync = c.new_sync(p.shape.m / kTileM);
  return std::make_unique<CeOverlapImpl>(c, p, sync, shard_tiles / chunks);  // its set-up is collective
}
#endif
