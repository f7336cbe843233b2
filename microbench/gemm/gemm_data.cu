#include "microbench/gemm/gemm_data.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "kernels/pattern.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::gemm {
namespace {

__global__ void fill_bf16_kernel(__nv_bfloat16* dst, uint64_t elems, uint64_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < elems; i += uint64_t(gridDim.x) * blockDim.x) {
    // 24 random bits -> [-1, 1): exactly representable steps, never all zero.
    const uint32_t r = static_cast<uint32_t>(pattern_word(seed, i) >> 40);
    dst[i] = __float2bfloat16_rn(static_cast<float>(r) * (2.0f / 16777216.0f) - 1.0f);
  }
}

struct Sums {
  double diff2, ref2;
  unsigned long long wrong;
  unsigned int max_rel_bits;  // float bits of a non-negative value (ordered as unsigned)
};

__global__ void sum_sq_kernel(const __nv_bfloat16* ref, uint64_t elems, double* ref2) {
  double s = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < elems; i += uint64_t(gridDim.x) * blockDim.x) {
    const double r = __bfloat162float(ref[i]);
    s += r * r;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(ref2, s);
}

// The scale floor is rms(ref), from the sums the previous kernel left (no round trip to the
// host between the two passes).
__global__ void compare_kernel(const __nv_bfloat16* out, const __nv_bfloat16* ref, uint64_t elems, float tol,
                               Sums* sums) {
  const float floor_abs = static_cast<float>(sqrt(sums->ref2 / double(elems)));
  double d2 = 0;
  unsigned long long wrong = 0;
  float worst = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < elems; i += uint64_t(gridDim.x) * blockDim.x) {
    const float o = __bfloat162float(out[i]), r = __bfloat162float(ref[i]);
    const float d = fabsf(o - r);
    const float scale = fmaxf(fabsf(r), floor_abs);
    if (!(d <= tol * scale)) ++wrong;  // NaN fails too
    const float rel = d / scale;
    worst = (rel == rel) ? fmaxf(worst, rel) : INFINITY;
    d2 += double(d) * double(d);
  }
  for (int o = 16; o > 0; o >>= 1) {
    d2 += __shfl_down_sync(0xffffffffu, d2, o);
    wrong += __shfl_down_sync(0xffffffffu, wrong, o);
    worst = fmaxf(worst, __shfl_down_sync(0xffffffffu, worst, o));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&sums->diff2, d2);
    atomicAdd(&sums->wrong, wrong);
    atomicMax(&sums->max_rel_bits, __float_as_uint(worst));
  }
}

float bf16_bits_to_float(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

std::string Comparison::describe() const {
  std::ostringstream os;
  os << wrong << " of " << elems << " elements off by more than " << elem_tol << " x max(|ref|, rms); relative "
     << "Frobenius error " << fmt_num(rel_fro_err, 3) << " (limit " << kFroTol << "), max relative error "
     << fmt_num(max_rel_err, 3);
  return os.str();
}

void fill_bf16_uniform(void* dst, uint64_t elems, uint64_t seed, cudaStream_t s) {
  fill_bf16_kernel<<<1024, 256, 0, s>>>(static_cast<__nv_bfloat16*>(dst), elems, seed);
  PK_CUDA_CHECK_LAUNCH();
}

namespace {

void queue_compare(const void* out, const void* ref, uint64_t elems, double elem_tol, Sums* d, cudaStream_t s) {
  PK_CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof(Sums), s));
  sum_sq_kernel<<<1024, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(ref), elems, &d->ref2);
  PK_CUDA_CHECK_LAUNCH();
  compare_kernel<<<1024, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(out), static_cast<const __nv_bfloat16*>(ref),
                                      elems, static_cast<float>(elem_tol), d);
  PK_CUDA_CHECK_LAUNCH();
}

Comparison comparison_of(const Sums& h, uint64_t elems, double elem_tol) {
  Comparison c;
  c.elems = elems;
  c.elem_tol = elem_tol;
  c.ref_rms = std::sqrt(h.ref2 / double(elems));
  c.wrong = h.wrong;
  float worst;
  std::memcpy(&worst, &h.max_rel_bits, 4);
  c.max_rel_err = worst;
  c.rel_fro_err = h.ref2 > 0 ? std::sqrt(h.diff2 / h.ref2) : std::numeric_limits<double>::infinity();
  if (!(h.diff2 == h.diff2)) c.rel_fro_err = std::numeric_limits<double>::infinity();
  return c;
}

}  // namespace

Comparison compare_bf16(const void* out, const void* ref, uint64_t elems, double elem_tol) {
  Sums* d = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&d, sizeof(Sums)));
  Sums h{};
  try {
    queue_compare(out, ref, elems, elem_tol, d, nullptr);
    PK_CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(d);
    throw;
  }
  PK_CUDA_CHECK(cudaFree(d));
  return comparison_of(h, elems, elem_tol);
}

PendingComparison::PendingComparison() {
  PK_CUDA_CHECK(cudaMalloc(&dev_, sizeof(Sums)));
  if (cudaMallocHost(&host_, sizeof(Sums)) != cudaSuccess) {
    cudaFree(dev_);
    throw CudaError("cudaMallocHost of a comparison's sums failed");
  }
}

PendingComparison::~PendingComparison() {
  cudaFreeHost(host_);
  cudaFree(dev_);
}

void PendingComparison::start(const void* out, const void* ref, uint64_t elems, double elem_tol, cudaStream_t s) {
  elems_ = elems;
  elem_tol_ = elem_tol;
  std::memset(host_, 0xFF, sizeof(Sums));  // a copy that never came reads as NaN sums, not as a pass
  queue_compare(out, ref, elems, elem_tol, static_cast<Sums*>(dev_), s);
  PK_CUDA_CHECK(cudaMemcpyAsync(host_, dev_, sizeof(Sums), cudaMemcpyDeviceToHost, s));
}

Comparison PendingComparison::result() const {
  Sums h;
  std::memcpy(&h, host_, sizeof h);
  return comparison_of(h, elems_, elem_tol_);
}

Comparison spot_check_host(const void* a, const void* b, const void* c, int m, int n, int k, double c_rms,
                           int samples, uint64_t seed) {
  std::vector<uint16_t> arow(k), brow(k);
  Comparison r;
  double d2 = 0, e2 = 0;
  for (int s = 0; s < samples; ++s) {
    const uint64_t w = pattern_word(seed, uint64_t(s));
    const int i = static_cast<int>(w % uint64_t(m));
    const int j = static_cast<int>((w >> 32) % uint64_t(n));
    PK_CUDA_CHECK(cudaMemcpy(arow.data(), static_cast<const uint16_t*>(a) + uint64_t(i) * k, k * 2, cudaMemcpyDeviceToHost));
    PK_CUDA_CHECK(cudaMemcpy(brow.data(), static_cast<const uint16_t*>(b) + uint64_t(j) * k, k * 2, cudaMemcpyDeviceToHost));
    uint16_t cv = 0;
    PK_CUDA_CHECK(cudaMemcpy(&cv, static_cast<const uint16_t*>(c) + uint64_t(i) * n + j, 2, cudaMemcpyDeviceToHost));
    double exact = 0;
    for (int x = 0; x < k; ++x) exact += double(bf16_bits_to_float(arow[x])) * double(bf16_bits_to_float(brow[x]));
    const double got = bf16_bits_to_float(cv);
    const double d = std::fabs(got - exact);
    const double scale = std::max(std::fabs(exact), c_rms);
    if (!(d <= kElemTol * scale)) ++r.wrong;
    r.max_rel_err = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(r.max_rel_err, d / scale);
    d2 += d * d;
    e2 += exact * exact;
  }
  r.elems = static_cast<uint64_t>(samples);
  r.ref_rms = c_rms;
  r.rel_fro_err = e2 > 0 ? std::sqrt(d2 / e2) : std::numeric_limits<double>::infinity();
  return r;
}

Comparison check_fresh_run(int m, int n, int k, void* a, void* b, void* c, void* ref, uint64_t seed,
                           const std::function<void()>& reference, const std::function<void()>& run) {
  const uint64_t ec = uint64_t(m) * n;
  fill_bf16_uniform(a, uint64_t(m) * k, seed);
  fill_bf16_uniform(b, uint64_t(n) * k, seed ^ 0xB0B0B0B0ull);
  PK_CUDA_CHECK(cudaMemset(c, kPoisonByte, ec * 2));
  PK_CUDA_CHECK(cudaMemset(ref, kPoisonByte, ec * 2));
  PK_CUDA_CHECK(cudaDeviceSynchronize());  // `run` may use a stream that does not wait for these
  reference();
  run();
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  const Comparison self = compare_bf16(ref, ref, ec);  // rms of the reference
  const Comparison spot = spot_check_host(a, b, ref, m, n, k, self.ref_rms, 32, seed);
  if (!spot.ok() || self.wrong)
    throw std::runtime_error("the reference on fresh inputs failed the fp64 host check: " +
                             (spot.ok() ? self : spot).describe());
  return compare_bf16(c, ref, ec);
}

}  // namespace pk::gemm
