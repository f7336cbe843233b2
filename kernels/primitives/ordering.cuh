#pragma once
// How a PK-style signal is written and polled: the memory ordering of every signal row of
// the primitives study. Each struct names itself for the CSV (`kName` is one of the study's
// ordering labels, `kDetail` the instructions) and says whether it is enough for a
// producer/consumer protocol in which data is written before the flag (`kOrdersData`):
// the consumer may read the data once it sees the flag only if the producer's data stores
// are ordered before the flag store (release, or a fence before a relaxed store) and the
// consumer's data loads after the flag load (acquire, or a fence after a relaxed load).
#include "kernels/ptx.cuh"

namespace pk::prim {

// No ordering at all: a volatile store and a volatile poll (volatile = relaxed at system
// scope in the PTX memory model). Fast, and wrong for data written before the flag.
struct OrderRelaxed {
  static constexpr const char* kName = "relaxed";
  static constexpr const char* kDetail = "st.volatile.global.b32 signal; ld.volatile.global.b32 poll; no fence";
  static constexpr bool kOrdersData = false;
  __device__ static void signal(int* f, int v) { pk::ptx::st_volatile(f, v); }
  __device__ static int poll(const int* f) { return pk::ptx::ld_volatile(f); }
  __device__ static void after_wait() {}
};

// Release store / acquire load at system scope: the PTX memory model's own pattern.
struct OrderReleaseAcquireSys {
  static constexpr const char* kName = "release_acquire_sys";
  static constexpr const char* kDetail = "st.release.sys.global.b32 signal; ld.acquire.sys.global.b32 poll";
  static constexpr bool kOrdersData = true;
  __device__ static void signal(int* f, int v) { pk::ptx::st_release_sys(f, v); }
  __device__ static int poll(const int* f) { return pk::ptx::ld_acquire_sys(f); }
  __device__ static void after_wait() {}
};

// A fence, then a relaxed store; a relaxed poll, then a fence (the pre-scoped idiom).
struct OrderFenceThenRelaxed {
  static constexpr const char* kName = "fence_then_relaxed";
  static constexpr const char* kDetail =
      "fence.acq_rel.sys; st.relaxed.sys.global.b32 signal; ld.relaxed.sys.global.b32 poll; fence.acq_rel.sys";
  static constexpr bool kOrdersData = true;
  __device__ static void signal(int* f, int v) {
    pk::ptx::fence_acq_rel_sys();
    pk::ptx::st_relaxed_sys(f, v);
  }
  __device__ static int poll(const int* f) { return pk::ptx::ld_relaxed_sys(f); }
  __device__ static void after_wait() { pk::ptx::fence_acq_rel_sys(); }
};

// ParallelKittens' signal: a fire-and-forget atomic add with release semantics. Flags only
// grow (round i signals i + 1), so an add and a store leave the same value.
struct OrderAtomicRelease {
  static constexpr const char* kName = "atomic";
  static constexpr const char* kDetail = "red.release.sys.global.add.s32 signal; ld.acquire.sys.global.b32 poll";
  static constexpr bool kOrdersData = true;
  __device__ static void signal(int* f, int) { pk::ptx::red_release_sys_add(f, 1); }
  __device__ static int poll(const int* f) { return pk::ptx::ld_acquire_sys(f); }
  __device__ static void after_wait() {}
};

}  // namespace pk::prim
