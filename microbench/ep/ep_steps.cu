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

// ---------------------------------------------------------------- high throughput

HtDispatch::HtDispatch(Context& c, int sms, bool tile_flags) : ctx_(c), tile_flags_(tile_flags) {
  if (!c.staging.bytes()) throw std::logic_error("no staging buffers: no high-throughput point was planned");
  if (sms > 0) pin_ = pin_kernel(c, reinterpret_cast<const void*>(ht_dispatch_kernel), sms, 512);
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
  ht_dispatch_kernel<<<pin_.sms, pin_.threads, pin_.smem, s>>>(data_params(gpu));
  PK_CUDA_CHECK_LAUNCH();
}

HtCombine::HtCombine(Context& c, int sms) : ctx_(c) {
  if (!c.comb_landing.bytes()) throw std::logic_error("no combine landing buffers: no high-throughput combine was planned");
  pin_ = pin_kernel(c, reinterpret_cast<const void*>(ht_combine_kernel), sms, 512);
}

void HtCombine::run(int gpu, cudaStream_t s) {
  HtCombineParams p{};
  set_point_fields(ctx_, gpu, p);
  p.slots_in = ctx_.layout(gpu).slots_in;
  p.landing = ctx_.comb_landing.table<uint4>(gpu);
  p.flags = ctx_.comb_flags.table<int>(gpu);
  p.epoch = ctx_.epoch(gpu, Instance::ht_combine);
  ht_combine_kernel<<<pin_.sms, pin_.threads, pin_.smem, s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------- low latency

LlDispatch::LlDispatch(Context& c, int sms) : ctx_(c) {
  if (!c.ll_landing.bytes()) throw std::logic_error("no LL landing buffers: no low-latency point was planned");
  pin_ = pin_kernel(c, reinterpret_cast<const void*>(ll_dispatch_kernel), sms, 512);
}

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
  ll_dispatch_kernel<<<pin_.sms, pin_.threads, pin_.smem, s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

LlCombine::LlCombine(Context& c, int sms) : ctx_(c) {
  pin_ = pin_kernel(c, reinterpret_cast<const void*>(ll_combine_kernel), sms, 512);
}

void LlCombine::run(int gpu, cudaStream_t s) {
  LlCombineParams p{};
  set_point_fields(ctx_, gpu, p);
  p.slots_in = ctx_.layout(gpu).slots_in;
  p.landing = ctx_.ll_comb_landing.table<char>(gpu);
  p.hello = ctx_.hello.table<char>(gpu);
  p.epoch = ctx_.epoch(gpu, Instance::ll_combine);
  ll_combine_kernel<<<pin_.sms, pin_.threads, pin_.smem, s>>>(p);
  PK_CUDA_CHECK_LAUNCH();
}

}  // namespace pk::ep
