#pragma once
// This suite's own Hopper GEMM as a plain C++ object (no CUDA headers beyond the runtime's):
// one kernel variant, prepared for N persistent blocks on the current device, with the
// tensor maps of each problem encoded once so that a launch costs no host work.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "kernels/status.cuh"
#include "microbench/harness/topology.h"
#include "microbench/gemm/gemm_problem.h"

namespace pk::gemm {

class PkGemm {
 public:
  // `sms` compute blocks plus `comm_blocks` blocks that run the (default, empty)
  // communicator role: the GEMM on `sms` SMs while `comm_blocks` more SMs are held.
  // Throws ArgError (bad block count for the variant) or SkipPoint (this GPU cannot hold
  // all blocks at once, one per SM).
  PkGemm(const std::string& variant, const GpuInfo& gpu, int sms, int comm_blocks = 0);
  ~PkGemm();
  PkGemm(const PkGemm&) = delete;
  PkGemm& operator=(const PkGemm&) = delete;

  // C[m,n] = A[m,k] * B[n,k]^T, bf16 row-major. group_m <= 0: the variant's default.
  // smid_out (optional, device memory, blocks() ints) receives each block's %smid.
  int add(const void* a, const void* b, void* c, const Shape& s, int group_m, int* smid_out, const Deadline& dl);
  void launch(int handle, cudaStream_t stream) const;

  const VariantInfo& info() const { return info_; }
  int sms() const { return sms_; }
  int blocks() const { return sms_ + comm_blocks_; }
  int group_m(int handle) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  VariantInfo info_;
  int sms_;
  int comm_blocks_;
};

}  // namespace pk::gemm
