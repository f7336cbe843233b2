#include "microbench/ep/ep_steps.h"

#include "kernels/ep/ht_combine.cuh"
#include "kernels/ep/ht_count.cuh"
#include "kernels/ep/ll_combine.cuh"
#include "kernels/ep/ll_dispatch.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/sm_pinning.h"

namespace pk::ep {

Pinned pin_kernel(Context& c, const void* kernel, int sms, int threads) {
  if (sms > c.sm_budget())
    throw SkipPoint("sms=" + std::to_string(sms) + ": the rank has " + std::to_string(c.sm_budget()) +
                    " SMs (spin-waiting blocks must all be resident)");
  if (sms > kEpMaxBlocks) throw SkipPoint("sms=" + std::to_string(sms) + " above the signal table's " + std::to_string(kEpMaxBlocks));
  Pinned p;
  for (int gpu : c.local_gpus()) {
    c.group.set_device(gpu);
    const PinnedLaunch l = pin_to_sms(kernel, sms, 1, threads, 0, c.group.topology().gpus.at(gpu));
    p.smem = l.smem;
  }
  p.sms = sms;
  p.threads = threads;
  return p;
}

Context& planned(Context& c, uint64_t buffer_bytes, const char* missing) {
  if (!buffer_bytes) throw std::logic_error(missing);
  return c;
}

// The fields both combines fill alike: the point's, the slots the last dispatch filled, the
// combine's epoch.
template <class Params>
Params combine_params(Context& c, int gpu, Instance instance) {
  Params p{};
  set_point_fields(c, gpu, p);
  p.slots_in = c.layout(gpu).slots_in;
  p.epoch = c.epoch(gpu, instance);
  return p;
}

// One launch of a step's kernel on its pinned grid.
template <class Params>
void launch_pinned(void (*kernel)(Params), const Pinned& pin, const Params& p, cudaStream_t s) {
  kernel<<<pin.sms, pin.threads, pin.smem, s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------- high throughput

HtDispatch::HtDispatch(Context& c, int sms, bool tile_flags)
    : PinnedStep(planned(c, c.staging.bytes(), "no staging buffers: no high-throughput point was planned")),
      tile_flags_(tile_flags) {
  if (sms > 0) pin_ = pin_kernel(c, reinterpret_cast<const void*>(ht_dispatch_kernel), sms, kThreads);
  for (int gpu : c.local_gpus()) {
    c.group.set_device(gpu);
    PK_CUDA_CHECK(cudaFuncSetAttribute(ht_count_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       ht_count_smem_bytes(c.shape.experts, c.ranks())));
  }
}

void HtDispatch::count(int gpu, cudaStream_t s) {
  RankBuffers& b = ctx_.at(gpu);
  HtCountParams p{};
  set_point_fields(ctx_, gpu, p);
  p.tiles_n = ctx_.shape.h_expert / kTileCols;
  p.counts = ctx_.counts.table<char>(gpu);
  p.send_list = b.send_list;
  p.layout = ctx_.layout(gpu);
  p.dest_cursor = ctx_.dest_cursor(gpu);
  p.expert_cursor = ctx_.expert_cursor(gpu);
  p.tile_flags = b.tile_flags;
  p.flag_count = tile_flags_ ? static_cast<int>(ctx_.rows_cap() / kRowAlign) : 0;
  p.epoch = ctx_.epoch(gpu, Instance::ht_count);
  ht_count_kernel<<<1, kCountThreads, ht_count_smem_bytes(p.experts, p.ranks), s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

HtDispatchParams HtDispatch::data_params(int gpu) {
  RankBuffers& b = ctx_.at(gpu);
  HtDispatchParams p{};
  set_point_fields(ctx_, gpu, p);
  p.send_list = b.send_list;
  p.send_items = ctx_.shape.tokens * ctx_.shape.topk;
  p.staging = ctx_.staging.table<uint4>(gpu);
  p.headers = ctx_.headers.table<uint4>(gpu);
  p.flags = ctx_.flags.table<int>(gpu);
  p.dest_cursor = ctx_.dest_cursor(gpu);
  p.expert_cursor = ctx_.expert_cursor(gpu);
  p.layout = ctx_.layout(gpu);
  p.recv = reinterpret_cast<uint4*>(b.recv);
  p.row_src = b.row_src;
  p.tile_flags = tile_flags_ ? b.tile_flags : nullptr;
  p.epoch = ctx_.epoch(gpu, Instance::ht_count).ctr;
  return p;
}

void HtDispatch::data(int gpu, cudaStream_t s) {
  launch_pinned(ht_dispatch_kernel, pin_, data_params(gpu), s);
}

HtCombine::HtCombine(Context& c, int sms)
    : PinnedStep(planned(c, c.comb_landing.bytes(), "no combine landing buffers: no high-throughput combine was planned"),
                 reinterpret_cast<const void*>(ht_combine_kernel), sms) {}

void HtCombine::run(int gpu, cudaStream_t s) {
  HtCombineParams p = combine_params<HtCombineParams>(ctx_, gpu, Instance::ht_combine);
  p.landing = ctx_.comb_landing.table<uint4>(gpu);
  p.flags = ctx_.comb_flags.table<int>(gpu);
  launch_pinned(ht_combine_kernel, pin_, p, s);
}

// ---------------------------------------------------------------- low latency

LlDispatch::LlDispatch(Context& c, int sms)
    : PinnedStep(planned(c, c.ll_landing.bytes(), "no LL landing buffers: no low-latency point was planned"),
                 reinterpret_cast<const void*>(ll_dispatch_kernel), sms) {}

void LlDispatch::run(int gpu, cudaStream_t s) {
  RankBuffers& b = ctx_.at(gpu);
  LlDispatchParams p{};
  set_point_fields(ctx_, gpu, p);
  p.landing = ctx_.ll_landing.table<char>(gpu);
  p.slot_bytes = LlSlot::bytes(ctx_.shape.hidden);
  p.cap = ctx_.ll_cap();
  p.cursors = ctx_.ll_cursors(gpu);
  p.layout = ctx_.layout(gpu);
  p.recv = reinterpret_cast<uint4*>(b.recv);
  p.row_src = b.row_src;
  p.epoch = ctx_.epoch(gpu, Instance::ll_dispatch);
  launch_pinned(ll_dispatch_kernel, pin_, p, s);
}

LlCombine::LlCombine(Context& c, int sms) : PinnedStep(c, reinterpret_cast<const void*>(ll_combine_kernel), sms) {}

void LlCombine::run(int gpu, cudaStream_t s) {
  LlCombineParams p = combine_params<LlCombineParams>(ctx_, gpu, Instance::ll_combine);
  p.landing = ctx_.ll_comb_landing.table<char>(gpu);
  p.hello = ctx_.hello.table<char>(gpu);
  launch_pinned(ll_combine_kernel, pin_, p, s);
}

}  // namespace pk::ep
