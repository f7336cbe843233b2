#pragma once
// Inputs and checks for the GEMM study: random bf16 matrices (uniform in [-1, 1), from a
// seed, identical for every implementation), poisoned outputs, and the comparison of an
// output with a reference (on the GPU, every element) and of a reference with an fp64
// host dot product (sampled elements).
#include <algorithm>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

namespace pk::gemm {

// bf16 bits of 0xFFFF are a NaN: an element nothing wrote can never pass a check.
inline constexpr unsigned char kPoisonByte = 0xFF;

void fill_bf16_uniform(void* dst, uint64_t elems, uint64_t seed, cudaStream_t s = nullptr);

// Tolerances: bf16 output rounding is at most one ulp (2^-8 .. 2^-7 relative) on each side,
// fp32 accumulation order differences are far smaller. An element is wrong when
// |out - ref| > kElemTol * max(|ref|, rms(ref)) (or either is NaN); the whole output is
// wrong when ||out - ref||_F / ||ref||_F > kFroTol or any element is wrong.
inline constexpr double kElemTol = 1.0 / 64;  // 2 bf16 ulps at the top of a binade
inline constexpr double kFroTol = 1e-2;

struct Comparison {
  double rel_fro_err = 0;   // ||out - ref||_F / ||ref||_F
  double max_rel_err = 0;   // max |out - ref| / max(|ref|, rms(ref)); inf when a NaN was seen
  uint64_t wrong = 0;       // elements over the per-element bound (NaN included)
  uint64_t elems = 0;
  double ref_rms = 0;
  double elem_tol = kElemTol;  // the per-element bound used
  bool ok() const { return wrong == 0 && rel_fro_err <= kFroTol; }
  std::string describe() const;
  // The worse of the two, element counts summed (the bounds and reference scale stay this one's).
  void merge(const Comparison& c) {
    wrong += c.wrong;
    elems += c.elems;
    rel_fro_err = std::max(rel_fro_err, c.rel_fro_err);
    max_rel_err = std::max(max_rel_err, c.max_rel_err);
  }
};

// Synchronous (device work on the current device, then a copy back). elem_tol replaces
// kElemTol in the per-element bound (0: bitwise equal values).
Comparison compare_bf16(const void* out, const void* ref, uint64_t elems, double elem_tol = kElemTol);

// The same comparison queued on a stream, for checks of several GPUs at once (virtual ranks
// each on their own SMs): start() queues it, result() reads it once the stream's work is done
// (the caller synchronises). The device and pinned host room is allocated once per object and
// reused, so a check neither allocates nor frees (a cudaFree waits for the whole device).
// Allocated on the device current at construction; one comparison in flight at a time.
class PendingComparison {
 public:
  PendingComparison();
  ~PendingComparison();
  PendingComparison(const PendingComparison&) = delete;
  PendingComparison& operator=(const PendingComparison&) = delete;
  void start(const void* out, const void* ref, uint64_t elems, double elem_tol, cudaStream_t s);
  Comparison result() const;

 private:
  void* dev_ = nullptr;   // the kernels' sums
  void* host_ = nullptr;  // their copy (pinned)
  uint64_t elems_ = 0;
  double elem_tol_ = kElemTol;
};

// Recomputes `samples` elements of C = A * B^T (row-major bf16, C[m,n]) in fp64 on the host
// from the device inputs and compares C with them (same bound as compare_bf16, against
// rms(C) given). Deterministic sample positions (seeded). Synchronous.
Comparison spot_check_host(const void* a, const void* b, const void* c, int m, int n, int k, double c_rms,
                           int samples, uint64_t seed);

// The final check of a timed configuration. A check of what the timed runs left behind passes
// an operation that wrote the right answer during warm-up and nothing afterwards; this one
// refills A (m x k) and B (n x k) from `seed`, poisons C and REF, runs `reference` (writes REF
// from A and B; checked against fp64 host dot products) and `run` (one operation of the exact
// timed configuration, writing C from A and B), and compares C with REF. Synchronous.
Comparison check_fresh_run(int m, int n, int k, void* a, void* b, void* c, void* ref, uint64_t seed,
                           const std::function<void()>& reference, const std::function<void()>& run);

}  // namespace pk::gemm
