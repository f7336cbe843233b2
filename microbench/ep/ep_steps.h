#pragma once
// Host launchers of the study's kernels (kernels/ep/), one small class per step, each built
// for one point on every local GPU (grids pinned to `sms` SMs of the rank: one block per SM)
// and enqueued by the implementations (impl_*.cu) on a GPU's stream.
#include <cuda_runtime.h>

#include <map>
#include <string>

#include "kernels/ep/expert_gemm.cuh"
#include "kernels/ep/ht_dispatch.cuh"
#include "microbench/ep/ep_context.h"

namespace pk::ep {

// Blocks of `threads` threads pinned one per SM on `sms` SMs of every local GPU; SkipPoint
// when the rank has fewer SMs (spin-waiting blocks must all be resident).
struct Pinned {
  int sms = 0, threads = 0;
  size_t smem = 0;
};
Pinned pin_kernel(Context& c, const void* kernel, int sms, int threads);

// High-throughput dispatch: the count exchange (one block) and the data step (`sms` blocks,
// or none: the overlapped GEMM's communicator blocks run it).
class HtDispatch {
 public:
  HtDispatch(Context& c, int sms, bool tile_flags);
  void count(int gpu, cudaStream_t s);
  void data(int gpu, cudaStream_t s);
  HtDispatchParams data_params(int gpu);
  int sms() const { return pin_.sms; }
  int threads() const { return pin_.threads; }

 private:
  Context& ctx_;
  Pinned pin_;
  bool tile_flags_;
};

class HtCombine {
 public:
  HtCombine(Context& c, int sms);
  void run(int gpu, cudaStream_t s);

 private:
  Context& ctx_;
  Pinned pin_;
};

class LlDispatch {
 public:
  LlDispatch(Context& c, int sms);
  void run(int gpu, cudaStream_t s);
  int sms() const { return pin_.sms; }
  int threads() const { return pin_.threads; }

 private:
  Context& ctx_;
  Pinned pin_;
};

class LlCombine {
 public:
  LlCombine(Context& c, int sms);
  void run(int gpu, cudaStream_t s);

 private:
  Context& ctx_;
  Pinned pin_;
};

// The grouped expert GEMM (ep_gemm.cu): `compute` blocks, plus `comm` communicator blocks that
// run `overlap`'s data step (overlap == nullptr: the GEMM alone, on a layout already there).
// Its tensor maps are encoded once, here: a launch costs no host work.
class ExpertGemm {
 public:
  ExpertGemm(Context& c, int compute, int comm, HtDispatch* overlap);
  void run(int gpu, cudaStream_t s);
  int compute() const { return compute_; }
  int comm() const { return comm_; }

 private:
  Context& ctx_;
  int compute_, comm_;
  std::map<int, ExpertGemmParams> params_;
};

}  // namespace pk::ep
