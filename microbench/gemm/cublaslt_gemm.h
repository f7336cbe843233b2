#pragma once
// The cuBLASLt baseline: the same problem as the suite's GEMM (bf16 A[M,K] and B[N,K]
// row-major, C = A * B^T in bf16, fp32 accumulation and scale), at its best: the fastest of
// the algorithms cuBLASLt's heuristic ranks highest (autotune(); until then its first), and
// optionally CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: cuBLASLt then
// picks and sizes its kernel for that many SMs, as when another kernel holds the rest (the
// fused study's "cuBLAS on the remaining SMs"). The target is a hint to cuBLASLt, not a
// limit the hardware enforces.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "microbench/gemm/autotune_cache.h"

namespace pk::gemm {

class CublasLtGemm {
 public:
  // sm_count_target <= 0: no target (the whole GPU). Throws CudaError when cuBLASLt has no
  // algorithm for the problem.
  CublasLtGemm(int m, int n, int k, int sm_count_target);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  void run(const void* a, const void* b, void* c, cudaStream_t stream) const;
  // Times each of the heuristic's first `effort.candidates` algorithms on these operands
  // (events, after a warm-up; best of `effort.rounds` rounds of `effort.launches`) and keeps the
  // fastest, as an autotuning user of cuBLASLt would; the description then names how many were
  // tried and the rank of the one kept. Once per problem and GPU in a process (autotune_cache()):
  // `gpu` (the physical GPU's PCI bus id), `context_sms` (the SMs the current context holds: a
  // virtual rank's share) and the effort complete the key. std::invalid_argument for an effort
  // below 1 anywhere. A problem tuned before takes the same choice and runs it once here on these operands:
  // that launch loads the kernel in this context, outside any start gate, as tuning did.
  void autotune(const void* a, const void* b, void* c, cudaStream_t stream, const std::string& gpu, int context_sms,
                const AutotuneEffort& effort = {});
  // Whether the last autotune() reused an earlier choice.
  bool reused_tuning() const { return reused_; }
  // "tile=<id> stages=<id> cluster=<id> sms=<target>" as cuBLASLt numbers them.
  const std::string& algo_description() const { return algo_desc_; }

 private:
  std::vector<cublasLtMatmulAlgo_t> heuristic(int n) const;
  std::string describe(const cublasLtMatmulAlgo_t& algo, const std::string& how) const;
  struct Impl;
  AutotuneKey tune_key(const std::string& gpu, int context_sms, const AutotuneEffort& effort) const;
  void tuned(const AutotuneChoice& c);
  std::unique_ptr<Impl> impl_;
  std::string algo_desc_;
  bool reused_ = false;
};

// The process's autotuning choices (CublasLtGemm::autotune).
AutotuneCache& autotune_cache();

}  // namespace pk::gemm
