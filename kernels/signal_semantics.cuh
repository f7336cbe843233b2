#pragma once
// How a flag is written and polled, one struct per memory-model semantics: signal(f, v)
// writes round value v (flags only grow, so an add of 1 and a store of v leave the same
// value), poll(f) reads it, after_wait() orders what the waiter reads next. Shared by the
// sync study's ping-pongs (kernels/sync_signal.cuh) and the primitives study's signal rows
// (kernels/primitives/ordering.cuh).
#include "kernels/ptx.cuh"

namespace pk::sync {

struct ReleaseAcquireSys {
  __device__ static void signal(int* f, int v) { ptx::st_release_sys(f, v); }
  __device__ static int poll(const int* f) { return ptx::ld_acquire_sys(f); }
  __device__ static void after_wait() {}
};
struct ReleaseAcquireGpu {
  __device__ static void signal(int* f, int v) { ptx::st_release_gpu(f, v); }
  __device__ static int poll(const int* f) { return ptx::ld_acquire_gpu(f); }
  __device__ static void after_wait() {}
};
// A relaxed poll needs a fence after it before the data it guards may be read.
struct RelaxedFenceSys {
  __device__ static void signal(int* f, int v) {
    ptx::fence_acq_rel_sys();
    ptx::st_relaxed_sys(f, v);
  }
  __device__ static int poll(const int* f) { return ptx::ld_relaxed_sys(f); }
  __device__ static void after_wait() { ptx::fence_acq_rel_sys(); }
};
struct RelaxedFenceGpu {
  __device__ static void signal(int* f, int v) {
    ptx::fence_acq_rel_gpu();
    ptx::st_relaxed_gpu(f, v);
  }
  __device__ static int poll(const int* f) { return ptx::ld_relaxed_gpu(f); }
  __device__ static void after_wait() { ptx::fence_acq_rel_gpu(); }
};
// ParallelKittens' signal: a fire-and-forget reduction with release semantics.
struct RedReleaseSys {
  __device__ static void signal(int* f, int) { ptx::red_release_sys_add(f, 1); }
  __device__ static int poll(const int* f) { return ptx::ld_acquire_sys(f); }
  __device__ static void after_wait() {}
};
struct RedReleaseGpu {
  __device__ static void signal(int* f, int) { ptx::red_release_gpu_add(f, 1); }
  __device__ static int poll(const int* f) { return ptx::ld_acquire_gpu(f); }
  __device__ static void after_wait() {}
};
// Relaxed at system scope, no fence: the flag itself arrives, but nothing written before it
// is guaranteed visible to the waiter. Only correct when the flag carries no data.
struct RelaxedSys {
  __device__ static void signal(int* f, int v) { ptx::st_relaxed_sys(f, v); }
  __device__ static int poll(const int* f) { return ptx::ld_relaxed_sys(f); }
  __device__ static void after_wait() {}
};
// Volatile store and poll, no fence (what a library's non-ordering put/wait compiles to).
struct VolatileNoFence {
  __device__ static void signal(int* f, int v) { ptx::st_volatile(f, v); }
  __device__ static int poll(const int* f) { return ptx::ld_volatile(f); }
  __device__ static void after_wait() {}
};
// Pre-scoped-memory-model style: volatile accesses around a system fence.
struct VolatileFence {
  __device__ static void signal(int* f, int v) {
    __threadfence_system();
    ptx::st_volatile(f, v);
  }
  __device__ static int poll(const int* f) { return ptx::ld_volatile(f); }
  __device__ static void after_wait() { __threadfence_system(); }
};

}  // namespace pk::sync
