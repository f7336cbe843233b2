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
#include "microbench/harness/tidy_csv.h"

namespace pk::ep {

// Blocks of `threads` threads pinned one per SM on `sms` SMs of every local GPU; SkipPoint
// when the rank has fewer SMs (spin-waiting blocks must all be resident).
struct Pinned {
  int sms = 0, threads = 0;
  size_t smem = 0;
};
Pinned pin_kernel(Context& c, const void* kernel, int sms, int threads);

// c, once the plan gave a step its buffers (`buffer_bytes` of them); else the logic error
// `missing` (no point of the step was planned). Checked before the step pins its kernel.
Context& planned(Context& c, uint64_t buffer_bytes, const char* missing);

// What every step shares: the context it reads its buffers from and its kernel's pinned grid.
class PinnedStep {
 public:
  static constexpr int kThreads = 512;  // every step kernel's __launch_bounds__
  int sms() const { return pin_.sms; }
  int threads() const { return pin_.threads; }
  // The row's grid columns: the step's blocks (one per SM) and their threads.
  void describe(Row& row) const {
    row["sms"] = std::to_string(pin_.sms);
    row["threads"] = std::to_string(pin_.threads);
  }

 protected:
  explicit PinnedStep(Context& c) : ctx_(c) {}  // the step pins its kernel itself
  PinnedStep(Context& c, const void* kernel, int sms) : ctx_(c), pin_(pin_kernel(c, kernel, sms, kThreads)) {}
  Context& ctx_;
  Pinned pin_;
};

// High-throughput dispatch: the count exchange (one block) and the data step (`sms` blocks,
// or none: the overlapped GEMM's communicator blocks run it; they need `tile_flags`).
class HtDispatch : public PinnedStep {
 public:
  HtDispatch(Context& c, int sms, bool tile_flags = false);
  void count(int gpu, cudaStream_t s);
  void data(int gpu, cudaStream_t s);
  // The whole dispatch on its own SMs: the count exchange, then the data step.
  void run(int gpu, cudaStream_t s) {
    count(gpu, s);
    data(gpu, s);
  }
  HtDispatchParams data_params(int gpu);

 private:
  bool tile_flags_;
};

class HtCombine : public PinnedStep {
 public:
  HtCombine(Context& c, int sms);
  void run(int gpu, cudaStream_t s);
};

class LlDispatch : public PinnedStep {
 public:
  LlDispatch(Context& c, int sms);
  void run(int gpu, cudaStream_t s);
};

class LlCombine : public PinnedStep {
 public:
  LlCombine(Context& c, int sms);
  void run(int gpu, cudaStream_t s);
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
  // The row's grid columns: the GEMM's blocks, and the communicator blocks (when it has any)
  // as the data step's sms and threads.
  void describe(Row& row) const {
    if (comm_ > 0) {
      row["sms"] = std::to_string(comm_);
      row["threads"] = std::to_string(ExpertGemmCfg::THREADS);
    }
    row["compute_sms"] = std::to_string(compute_);
  }

 private:
  Context& ctx_;
  int compute_, comm_;
  std::map<int, ExpertGemmParams> params_;
};

}  // namespace pk::ep
