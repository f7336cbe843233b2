#pragma once
// Section 3.1.4 of the paper: the same remote put / get / signal written the way a
// symmetric-memory library's device API does it (NVSHMEM-style) and the ParallelKittens
// way. Library style: the peer's address is looked up in a global table (__ldg) on every
// access, stores are volatile, a signal is a fenced system-scope atomic, and the block
// synchronises around each operation (the _block API shape). PK style: the peer pointer
// sits in a register, plain stores, a release reduction for a signal, no extra sync.
#include "kernels/spin_wait.cuh"
#include "kernels/sync_timing.cuh"

namespace pk::sync {

// `table[pe]` holds pe's base address as seen from this GPU.
__device__ __forceinline__ int* library_translate(const unsigned long long* table, int pe, uint64_t offset_ints) {
  return reinterpret_cast<int*>(__ldg(table + pe)) + offset_ints;
}

static __global__ void library_put_kernel(const unsigned long long* table, int pe, const int* src, uint64_t n) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  const uint64_t rounds = (n + stride - 1) / stride;
  for (uint64_t r = 0; r < rounds; ++r) {
    const uint64_t i = r * stride + blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
    if (i < n) ptx::st_volatile(library_translate(table, pe, i), src[i]);
    __syncthreads();
  }
}

// Dependent remote loads (each load's value is the next index): latency of one get.
template <bool LibraryStyle>
static __global__ void chase_kernel(const uint64_t* base, const unsigned long long* table, int pe, uint64_t start, int hops,
                             uint32_t* cycles, TimingRecord* rec) {
  if (threadIdx.x != 0) return;
  record_start(rec);
  uint64_t idx = start;
  for (int i = 0; i < hops; ++i) {
    const uint64_t t0 = ptx::clock64_cycles();
    if constexpr (LibraryStyle) {
      const uint64_t* p = reinterpret_cast<const uint64_t*>(__ldg(table + pe)) + idx;
      idx = ptx::ld_volatile_u64(p);
    } else {
      idx = ptx::ld_relaxed_sys_u64(base + idx);
    }
    cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
  }
  record_end(rec);
  rec->sink = idx;
}

// Writes a pseudo-random full cycle over `slots` slots spaced `stride_words` apart:
// slot s points at (a*s + c) mod slots (slots a power of two, a = 1 mod 4, c odd).
static __global__ void build_chase_kernel(uint64_t* buf, uint64_t slots, uint64_t stride_words) {
  for (uint64_t s = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; s < slots; s += uint64_t(gridDim.x) * blockDim.x)
    buf[s * stride_words] = ((s * 1103515245ull + 12345ull) & (slots - 1)) * stride_words;
}

// Library-style signal ping-pong: a block of threads, table lookup, fence + system atomic
// to signal, volatile polling, block sync around every operation.
static __global__ void library_pingpong_kernel(const unsigned long long* table, int partner, uint64_t flag_offset_ints,
                                        const int* my_flag, bool initiator, int iters, uint32_t* cycles,
                                        TimingRecord* rec, Deadline d) {
  __shared__ int failed;
  if (threadIdx.x == 0) {
    failed = 0;
    if (initiator) record_start(rec);
  }
  __syncthreads();
  for (int i = 0; i < iters; ++i) {
    const uint64_t t0 = ptx::clock64_cycles();
    if (initiator) {
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence_system();
        atomicAdd_system(library_translate(table, partner, flag_offset_ints), 1);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0 && !spin_until([&] { return ptx::ld_volatile(my_flag) >= i + 1; }, d, kWaitFlag)) failed = 1;
    __syncthreads();
    if (failed) return;
    if (!initiator) {
      if (threadIdx.x == 0) {
        __threadfence_system();
        atomicAdd_system(library_translate(table, partner, flag_offset_ints), 1);
      }
      __syncthreads();
    } else if (threadIdx.x == 0) {
      cycles[i] = static_cast<uint32_t>(ptx::clock64_cycles() - t0);
    }
  }
  if (initiator && threadIdx.x == 0) record_end(rec);
}

}  // namespace pk::sync
