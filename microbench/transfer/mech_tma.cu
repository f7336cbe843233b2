// TMA mechanisms: 1-D bulk copies (tma_bulk) and 2-D tensor tiles over a CUtensorMap of the
// peer's memory (tma_tile). Both stage messages through shared memory with the pipeline in
// kernels/transfer_tma.cuh; `threads` / 32 warps per block each run one pipeline.
#include <algorithm>

#include "kernels/transfer_tma.cuh"
#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/sm_pinning.h"
#include "microbench/harness/tensor_map.h"
#include "microbench/transfer/mechanism.h"

namespace pk::transfer {
namespace {

constexpr uint64_t kTileRowBytes = 16384;  // tiles are cut from a [rows x 8192] u16 matrix
constexpr uint64_t kMaxTileBytes = 256 * 256 * 2;

uint32_t stage_stride(uint64_t msg) { return static_cast<uint32_t>((msg + 127) / 128 * 128); }

const Knob kDepth{"pipeline_depth", "depths", "stages", "TMA pipeline stages per issuing warp", {}};

int warps(const TransferPoint& p) { return p.knob(knobs::threads.name) / 32; }

class TmaBase : public Mechanism {
 public:
  // threads / 32 warps per block each run one pipeline.
  std::vector<KnobUse> knobs() const override {
    return {{knobs::sms, 0}, {knobs::blocks_per_sm, 1}, {knobs::threads, 128}, {kDepth, 0}};
  }
  uint64_t default_max_ops() const override { return 1u << 20; }
  std::vector<Feature> needs() const override { return {Feature::device_code, Feature::tma}; }
  uint64_t max_message(const GpuInfo& g) const override {
    // One warp, one stage: what the kernel's layout leaves of the block's shared memory.
    uint64_t room = g.smem_per_block_optin_bytes - transfer::tma_smem_bytes(1, 1, 0);
    return room / 128 * 128;
  }

  void resolve_knobs(TransferPoint& p, const GpuInfo& g) const override {
    int& depth = p.knobs[kDepth.name];
    int& threads = p.knobs[knobs::threads.name];
    const int bpsm = std::max(1, p.knob(knobs::blocks_per_sm.name));
    // Small messages need many in flight to cover latency: about 48 KiB per warp, 2..16 deep.
    if (depth == 0) depth = static_cast<int>(std::clamp<uint64_t>(48 * 1024 / stage_stride(p.message_bytes), 2, 16));
    check_message(p, g);
    if (depth < 1 || depth > 64) throw ArgError("--depths: pipeline depth must be in 1..64");
    if (threads < 32 || threads % 32) throw ArgError("--threads must be a multiple of 32 (one pipeline per warp)");
    const uint64_t budget =
        std::min<uint64_t>(g.smem_per_block_optin_bytes, g.smem_per_sm_bytes / bpsm - g.smem_reserved_per_block_bytes);
    auto need = [&] { return transfer::tma_smem_bytes(threads / 32, depth, stage_stride(p.message_bytes)); };
    while (need() > budget && p.auto_fit && (threads > 32 || depth > 1)) {
      if (threads > 32) threads /= 2;
      else --depth;
    }
    if (need() > budget)
      throw ArgError(name() + ": " + std::to_string(threads / 32) + " warp(s) x " + std::to_string(depth) +
                     " stage(s) of " + format_size(p.message_bytes) + " need " + std::to_string(need()) +
                     " B of shared memory, " + std::to_string(budget) + " B available per block");
  }

 protected:
  virtual void check_message(const TransferPoint& p, const GpuInfo& g) const {
    if (p.message_bytes > max_message(g))
      throw ArgError(name() + ": message " + format_size(p.message_bytes) + " exceeds the shared-memory limit (" +
                     std::to_string(max_message(g)) + " B)");
  }

  template <class Addr>
  static PinnedLaunch launch_config(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) {
    const uint64_t need = transfer::tma_smem_bytes(warps(p), p.knob(kDepth.name), stage_stride(p.message_bytes));
    return pin_to_sms(reinterpret_cast<const void*>(&tma_copy_kernel<Addr>), b.sms, p.knob(knobs::blocks_per_sm.name),
                      p.knob(knobs::threads.name), need, g);
  }

  static TmaPipelineParams pipeline(const TransferPoint& p, const FlowBuffers& b, const Deadline& d) {
    return TmaPipelineParams{b.ops, static_cast<uint32_t>(p.message_bytes), stage_stride(p.message_bytes),
                             static_cast<uint32_t>(p.knob(kDepth.name)), d};
  }
};

class TmaBulkOp final : public FlowOp {
 public:
  TmaBulkOp(const TransferPoint& p, const FlowBuffers& b, PinnedLaunch l, TmaPipelineParams pp)
      : b_(b), l_(l), pp_(pp), msg_(static_cast<uint32_t>(p.message_bytes)) {}
  void enqueue(cudaStream_t s, int group) override {
    BulkAddressing a{b_.src_buf + b_.src_offset + group * b_.bytes_per_op,
                     b_.dst_buf + b_.dst_offset + group * b_.bytes_per_op, msg_};
    tma_copy_kernel<BulkAddressing><<<l_.grid, l_.block, l_.smem, s>>>(a, pp_);
    PK_CUDA_CHECK_LAUNCH();
  }

 private:
  FlowBuffers b_;
  PinnedLaunch l_;
  TmaPipelineParams pp_;
  uint32_t msg_;
};

class TmaBulk final : public TmaBase {
 public:
  std::string name() const override { return "tma_bulk"; }
  std::string summary() const override { return "TMA 1-D bulk copies (cp.async.bulk) through shared memory"; }
  // Up to the shared-memory limit: the powers of two, then the largest bulk message in whole
  // KiB (one warp, one stage).
  std::vector<uint64_t> size_sweep(const GpuInfo& g) const override {
    const uint64_t top = largest_pow2_at_most(max_message(g)), limit = max_message(g) / 1024 * 1024;
    std::vector<uint64_t> v = pow2_sizes(16, top);
    if (limit > top) v.push_back(limit);
    return v;
  }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const override;
};

struct TileShape {
  uint32_t box_cols, box_rows, tiles_x;
};
TileShape tile_shape(uint64_t msg) {
  TileShape t;
  t.box_cols = static_cast<uint32_t>(std::min<uint64_t>(256, msg / 2));
  t.box_rows = static_cast<uint32_t>(msg / (2ull * t.box_cols));
  t.tiles_x = static_cast<uint32_t>(kTileRowBytes / (2ull * t.box_cols));
  return t;
}

class TmaTileOp final : public FlowOp {
 public:
  TmaTileOp(const FlowBuffers& b, PinnedLaunch l, TmaPipelineParams pp, TileAddressing a)
      : b_(b), l_(l), pp_(pp), a_(a) {}
  void enqueue(cudaStream_t s, int group) override {
    TileAddressing a = a_;
    a.src_row0 = static_cast<uint32_t>((b_.src_offset + group * b_.bytes_per_op) / kTileRowBytes);
    a.dst_row0 = static_cast<uint32_t>((b_.dst_offset + group * b_.bytes_per_op) / kTileRowBytes);
    tma_copy_kernel<TileAddressing><<<l_.grid, l_.block, l_.smem, s>>>(a, pp_);
    PK_CUDA_CHECK_LAUNCH();
  }

 private:
  FlowBuffers b_;
  PinnedLaunch l_;
  TmaPipelineParams pp_;
  TileAddressing a_;
};

class TmaTile final : public TmaBase {
 public:
  std::string name() const override { return "tma_tile"; }
  std::string summary() const override {
    return "TMA 2-D tensor tiles (cp.async.bulk.tensor) of a u16 matrix with 16 KiB rows, maps over peer memory";
  }
  uint64_t max_message(const GpuInfo& g) const override {
    return std::min<uint64_t>(kMaxTileBytes, TmaBase::max_message(g));
  }
  uint64_t op_granule(const TransferPoint& p) const override {
    return kTileRowBytes * tile_shape(p.message_bytes).box_rows;
  }
  std::vector<uint64_t> size_sweep(const GpuInfo& g) const override {
    return pow2_sizes(16, largest_pow2_at_most(max_message(g)));
  }
  std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const override;

 protected:
  void check_message(const TransferPoint& p, const GpuInfo& g) const override {
    TmaBase::check_message(p, g);
    const uint64_t m = p.message_bytes;
    const bool pow2 = (m & (m - 1)) == 0;
    if (!((m <= 512 && pow2) || (m % 512 == 0 && m <= kMaxTileBytes)))
      throw ArgError("tma_tile: message " + std::to_string(m) +
                     " B is not a tile of the 16 KiB-row matrix (a power of two up to 512 B, or a multiple of 512 B up "
                     "to 128 KiB)");
  }
};

}  // namespace

std::unique_ptr<FlowOp> TmaBulk::prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const {
  auto l = launch_config<BulkAddressing>(p, b, g);
  return std::make_unique<TmaBulkOp>(p, b, l, pipeline(p, b, b.deadline));
}

std::unique_ptr<FlowOp> TmaTile::prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const {
  if (b.src_buf_bytes % kTileRowBytes || b.dst_buf_bytes % kTileRowBytes || b.src_offset % kTileRowBytes ||
      b.dst_offset % kTileRowBytes || b.bytes_per_op % op_granule(p))
    throw ArgError("tma_tile: buffers and regions must be whole 16 KiB rows");
  const TileShape t = tile_shape(p.message_bytes);
  TileAddressing a{};
  a.src_map = make_tensor_map_2d_u16(b.src_buf, kTileRowBytes / 2, b.src_buf_bytes / kTileRowBytes, kTileRowBytes,
                                     t.box_cols, t.box_rows);
  a.dst_map = make_tensor_map_2d_u16(b.dst_buf, kTileRowBytes / 2, b.dst_buf_bytes / kTileRowBytes, kTileRowBytes,
                                     t.box_cols, t.box_rows);
  a.tiles_x = t.tiles_x;
  a.box_cols = t.box_cols;
  a.box_rows = t.box_rows;
  auto l = launch_config<TileAddressing>(p, b, g);
  return std::make_unique<TmaTileOp>(b, l, pipeline(p, b, b.deadline), a);
}

const Mechanism& tma_bulk_mechanism() {
  static const TmaBulk m;
  return m;
}
const Mechanism& tma_tile_mechanism() {
  static const TmaTile m;
  return m;
}

}  // namespace pk::transfer
