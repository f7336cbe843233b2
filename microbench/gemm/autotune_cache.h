#pragma once
// The process's memory of cuBLASLt's autotuning (CublasLtGemm::autotune): which of the
// heuristic's candidates was fastest for one problem on one GPU. Autotuning times every
// candidate several times over, seconds for a large shape, and the answer depends only on what
// the key holds, so each problem is tuned once per process and every later point of it reuses
// the choice. Plain C++ (no CUDA): the CPU tests cover it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

namespace pk::gemm {

// How hard autotuning looks: the heuristic's first `candidates` algorithms, each timed as the
// best of `rounds` rounds of `launches` launches. The defaults are the study's; a sanitizer
// run takes the least (racecheck's host memory grows with every cuBLASLt launch it watches).
struct AutotuneEffort {
  int candidates = 8;
  int rounds = 3;
  int launches = 10;
};

// Everything the choice depends on. The operand types and layouts are CublasLtGemm's one
// problem (bf16 TN, fp32 accumulation): not part of the key.
struct AutotuneKey {
  std::string gpu;        // the physical GPU (its PCI bus id): another GPU tunes for itself
  int context_sms = 0;    // the SMs the tuning context holds (a virtual rank's share, or the GPU's)
  int m = 0, n = 0, k = 0;
  int sm_target = 0;      // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET (0: none)
  uint64_t workspace_bytes = 0;  // the workspace the candidates were offered and timed with
  AutotuneEffort effort;  // how many candidates were timed, and how: a cheaper effort's choice is not a full one's
  bool operator<(const AutotuneKey& o) const {
    return std::tie(gpu, context_sms, m, n, k, sm_target, workspace_bytes, effort.candidates, effort.rounds,
                    effort.launches) < std::tie(o.gpu, o.context_sms, o.m, o.n, o.k, o.sm_target, o.workspace_bytes,
                                                o.effort.candidates, o.effort.rounds, o.effort.launches);
  }
};

// What autotuning chose: the algorithm (cublasLtMatmulAlgo_t's 64 opaque bytes) and how the
// row describes it.
struct AutotuneChoice {
  std::array<uint64_t, 8> algo{};
  int rank = 0;   // 1-based rank of the choice among the heuristic's candidates
  int tried = 0;  // candidates the heuristic returned and that were timed
};

class AutotuneCache {
 public:
  std::optional<AutotuneChoice> find(const AutotuneKey& k) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(k);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  void put(const AutotuneKey& k, const AutotuneChoice& c) {
    std::lock_guard<std::mutex> lock(mu_);
    map_[k] = c;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.size();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    map_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::map<AutotuneKey, AutotuneChoice> map_;
};

}  // namespace pk::gemm
