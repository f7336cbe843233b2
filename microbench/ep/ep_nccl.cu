#include "microbench/ep/ep_nccl.h"

#include <cstdlib>

#include "kernels/ep/nccl_steps.cuh"
#include "microbench/harness/cuda_check.h"

#ifdef PKBENCH_HAVE_NCCL
#include "microbench/harness/nccl_comms.h"
#endif

namespace pk::ep {

#ifdef PKBENCH_HAVE_NCCL

Context::Nccl::~Nccl() {
  for (auto& [gpu, c] : comms) ncclCommDestroy(c);
}

std::string Context::ensure_nccl() {
  if (nccl_tried_) return nccl_refusal_;
  nccl_tried_ = true;
  nccl_refusal_ = group.library_skip_reason("NCCL");
  if (!nccl_refusal_.empty()) return nccl_refusal_;
  if (!at(local_gpus().front()).send_rows) return nccl_refusal_ = "no NCCL buffers (no NCCL point was planned)";
  auto n = std::make_unique<Nccl>();
  n->comms = make_nccl_comms(group);
  nccl_ = std::move(n);
  return "";
}

std::string NcclBaseline::version() {
  int v = 0;
  ncclGetVersion(&v);
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

namespace {

NcclStepParams step_params(Context& c, int gpu) {
  RankBuffers& b = c.at(gpu);
  const NcclInts ni = c.nccl_ints();
  NcclStepParams p{};
  set_point_fields(c, gpu, p);
  p.tiles_n = c.shape.h_expert / kTileCols;
  p.send_counts = b.nccl_ints + ni.send_counts_at();
  p.recv_counts = b.nccl_ints + ni.recv_counts_at();
  p.send_off = b.nccl_ints + ni.send_off_at();
  p.dest_cursor = c.dest_cursor(gpu);
  p.expert_cursor = c.expert_cursor(gpu);
  p.slot_of = b.nccl_ints + ni.slot_of_at();
  p.send_rows = reinterpret_cast<uint4*>(b.send_rows);
  p.recv_rows = reinterpret_cast<const uint4*>(b.recv_rows);
  p.layout = c.layout(gpu);
  p.recv = reinterpret_cast<uint4*>(b.recv);
  p.row_src = b.row_src;
  p.comb_send = reinterpret_cast<uint4*>(b.comb_send);
  p.comb_recv = reinterpret_cast<const uint4*>(b.comb_recv);
  return p;
}

}  // namespace

NcclBaseline::NcclBaseline(Context& c, int blocks) : ctx_(c), blocks_(blocks) {
  if (const std::string why = c.ensure_nccl(); !why.empty()) throw SkipPoint(why);
  const Traffic& tr = c.traffic();
  const int N = c.ranks();
  for (int gpu : c.local_gpus()) {
    Sizes s;
    int out = 0, in = 0;
    for (int q = 0; q < N; ++q) {
      s.out_off.push_back(out);
      s.in_off.push_back(in);
      s.out.push_back(tr.tokens_to[gpu][q]);
      s.in.push_back(tr.tokens_to[q][gpu]);
      out += s.out.back();
      in += s.in.back();
    }
    sizes_[gpu] = s;
    c.group.set_device(gpu);
    PK_CUDA_CHECK(cudaFuncSetAttribute(nccl_count_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       nccl_count_smem_bytes(c.shape.experts, N)));
  }
}

void NcclBaseline::exchange(bool reverse, uint64_t row_bytes) {
  auto& comms = ctx_.nccl()->comms;
  PK_NCCL_CHECK(ncclGroupStart());
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    RankBuffers& b = ctx_.at(gpu);
    const Sizes& s = sizes_.at(gpu);
    // Dispatch: tokens for q from the send rows, q's into the receive rows. Combine (reverse):
    // what came from q goes back to q, into the rows it was sent from.
    char* send = reverse ? reinterpret_cast<char*>(b.comb_send) : b.send_rows;
    char* recv = reverse ? reinterpret_cast<char*>(b.comb_recv) : b.recv_rows;
    const std::vector<int>& n_send = reverse ? s.in : s.out;
    const std::vector<int>& off_send = reverse ? s.in_off : s.out_off;
    const std::vector<int>& n_recv = reverse ? s.out : s.in;
    const std::vector<int>& off_recv = reverse ? s.out_off : s.in_off;
    for (int q = 0; q < ctx_.ranks(); ++q) {
      PK_NCCL_CHECK(ncclSend(send + uint64_t(off_send[q]) * row_bytes, uint64_t(n_send[q]) * row_bytes, ncclUint8, q,
                             comms.at(gpu), ctx_.stream(gpu)));
      PK_NCCL_CHECK(ncclRecv(recv + uint64_t(off_recv[q]) * row_bytes, uint64_t(n_recv[q]) * row_bytes, ncclUint8, q,
                             comms.at(gpu), ctx_.stream(gpu)));
    }
  }
  PK_NCCL_CHECK(ncclGroupEnd());
}

void NcclBaseline::group_start() {
  if (ctx_.local_gpus().size() > 1) PK_NCCL_CHECK(ncclGroupStart());
}
void NcclBaseline::group_end() {
  if (ctx_.local_gpus().size() > 1) PK_NCCL_CHECK(ncclGroupEnd());
}

void NcclBaseline::dispatch() {
  const int N = ctx_.ranks(), El = ctx_.local_experts();
  const uint64_t row = sizeof(TokenHeader) + ctx_.shape.token_bytes();
  auto& comms = ctx_.nccl()->comms;
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    const NcclStepParams p = step_params(ctx_, gpu);
    nccl_count_kernel<<<1, 1024, nccl_count_smem_bytes(ctx_.shape.experts, N), ctx_.stream(gpu)>>>(p);
    PK_CUDA_CHECK_LAUNCH();
  }
  group_start();
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    const NcclStepParams p = step_params(ctx_, gpu);
    PK_NCCL_CHECK(ncclAlltoAll(p.send_counts, const_cast<int*>(p.recv_counts), El + 1, ncclInt32, comms.at(gpu), ctx_.stream(gpu)));
  }
  group_end();
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    nccl_pack_kernel<<<blocks_, 512, 0, ctx_.stream(gpu)>>>(step_params(ctx_, gpu));
    PK_CUDA_CHECK_LAUNCH();
  }
  exchange(false, row);
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    nccl_permute_kernel<<<blocks_, 512, nccl_permute_smem_bytes(El), ctx_.stream(gpu)>>>(step_params(ctx_, gpu));
    PK_CUDA_CHECK_LAUNCH();
  }
}

void NcclBaseline::combine() {
  const uint64_t row = ctx_.shape.token_bytes();
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    nccl_combine_pack_kernel<<<blocks_, 512, 0, ctx_.stream(gpu)>>>(step_params(ctx_, gpu));
    PK_CUDA_CHECK_LAUNCH();
  }
  exchange(true, row);
  for (int gpu : ctx_.local_gpus()) {
    ctx_.group.set_device(gpu);
    nccl_combine_reduce_kernel<<<blocks_, 512, 0, ctx_.stream(gpu)>>>(step_params(ctx_, gpu));
    PK_CUDA_CHECK_LAUNCH();
  }
}

#else  // no NCCL in this build: the baseline's points are skipped with the reason

Context::Nccl::~Nccl() = default;
std::string Context::ensure_nccl() { return "this build has no NCCL"; }
std::string NcclBaseline::version() { return ""; }
NcclBaseline::NcclBaseline(Context& c, int blocks) : ctx_(c), blocks_(blocks) { throw SkipPoint("this build has no NCCL"); }
void NcclBaseline::dispatch() {}
void NcclBaseline::combine() {}
void NcclBaseline::group_start() {}
void NcclBaseline::group_end() {}
void NcclBaseline::exchange(bool, uint64_t) {}

#endif

}  // namespace pk::ep
