#pragma once
// How a PK-style signal is written and polled: the memory ordering of every signal row of
// the primitives study. Each is one of the sync study's semantics (kernels/signal_semantics.cuh)
// named for the CSV (`kName` is one of the study's ordering labels, `kDetail` the
// instructions) and saying whether it is enough for a producer/consumer protocol in which
// data is written before the flag (`kOrdersData`): the consumer may read the data once it
// sees the flag only if the producer's data stores are ordered before the flag store
// (release, or a fence before a relaxed store) and the consumer's data loads after the flag
// load (acquire, or a fence after a relaxed load).
#include "kernels/signal_semantics.cuh"

namespace pk::prim {

// No ordering at all: a volatile store and a volatile poll (volatile = relaxed at system
// scope in the PTX memory model). Fast, and wrong for data written before the flag.
struct OrderRelaxed : sync::VolatileNoFence {
  static constexpr const char* kName = "relaxed";
  static constexpr const char* kDetail = "st.volatile.global.b32 signal; ld.volatile.global.b32 poll; no fence";
  static constexpr bool kOrdersData = false;
};

// Release store / acquire load at system scope: the PTX memory model's own pattern.
struct OrderReleaseAcquireSys : sync::ReleaseAcquireSys {
  static constexpr const char* kName = "release_acquire_sys";
  static constexpr const char* kDetail = "st.release.sys.global.b32 signal; ld.acquire.sys.global.b32 poll";
  static constexpr bool kOrdersData = true;
};

// A fence, then a relaxed store; a relaxed poll, then a fence (the pre-scoped idiom).
struct OrderFenceThenRelaxed : sync::RelaxedFenceSys {
  static constexpr const char* kName = "fence_then_relaxed";
  static constexpr const char* kDetail =
      "fence.acq_rel.sys; st.relaxed.sys.global.b32 signal; ld.relaxed.sys.global.b32 poll; fence.acq_rel.sys";
  static constexpr bool kOrdersData = true;
};

// ParallelKittens' signal: a fire-and-forget atomic add with release semantics.
struct OrderAtomicRelease : sync::RedReleaseSys {
  static constexpr const char* kName = "atomic";
  static constexpr const char* kDetail = "red.release.sys.global.add.s32 signal; ld.acquire.sys.global.b32 poll";
  static constexpr bool kOrdersData = true;
};

}  // namespace pk::prim
