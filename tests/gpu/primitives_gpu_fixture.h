#pragma once
// Shared by the primitives GPU tests: one Context per process (small counts, short
// timeouts), torn down before the process (and MPI) ends, and a catalogue lookup.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "microbench/harness/comm.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/primitives/primitives.h"
#include "tests/gpu/gpu_test_util.h"

namespace pk::prim::testing {

inline Options small_options() {
  Options o;
  o.iters = 300;
  o.warmup = 20;
  o.latency_samples = 8;
  o.bw_samples = 2;
  o.target_sample_ms = 0.5;
  o.timeout_ms = 300;
  o.chain_large_bytes = 64ull << 20;
  o.bulk_sizes = {4096};
  if (slowed_by_a_tool()) {  // every dependent load checked: 8 MiB of chain and few hops cover the same paths
    o.iters = 40;
    o.warmup = 4;
    o.latency_samples = 2;
    o.chain_large_bytes = 8ull << 20;
  }
  return o;
}

struct World {
  std::unique_ptr<Comm> comm;
  std::unique_ptr<PeerGroup> group;
  std::unique_ptr<Context> ctx;
  std::string why_not;  // set when there is no usable set-up (the tests skip with it)
};

inline World& world() {
  static World w;
  return w;
}

// Builds the world once: `mode` single or virt (this process alone) or ipc (under mpirun).
inline World& setup(PeerMode mode, int* argc = nullptr, char*** argv = nullptr) {
  World& w = world();
  if (w.ctx || !w.why_not.empty()) return w;
  if (!w.comm) w.comm = mode == PeerMode::ipc ? make_comm(argc, argv) : make_self_comm();
  std::string why = no_gpu_reason();
  why = w.comm->first_error(why);
  if (!why.empty()) {
    w.why_not = why;
    return w;
  }
  try {
    w.group = std::make_unique<PeerGroup>(*w.comm, mode);
    w.ctx = std::make_unique<Context>(*w.group, small_options());
  } catch (const std::exception& e) {
    w.why_not = std::string("set-up failed: ") + e.what();
  }
  return w;
}

inline void teardown() {
  World& w = world();
  release_libraries();
  w.ctx.reset();
  w.group.reset();
  w.comm.reset();
}

// The catalogue entry matching every given field.
inline Spec find_spec(const std::map<std::string, std::string>& where) {
  for (const Spec& s : catalogue(small_options())) {
    const Row r = spec_row(s);
    bool ok = true;
    for (const auto& [k, v] : where) ok = ok && r.count(k) && r.at(k) == v;
    if (ok) return s;
  }
  throw std::logic_error("no catalogue entry matches");
}

// `type var = expr`, or the test skipped with the reason where `expr` throws SkipPoint.
#define PK_PRIM_OR_SKIP(type, var, expr) \
  type var{};                            \
  try {                                  \
    var = (expr);                        \
  } catch (const SkipPoint& e) {         \
    GTEST_SKIP() << e.what();            \
  }

// Runs a spec; a SkipPoint (library absent, one GPU) skips the test.
#define PK_PRIM_RUN(row, spec) PK_PRIM_OR_SKIP(Row, row, run_spec(*world().ctx, spec))

#define PK_PRIM_REQUIRE_WORLD()                                            \
  do {                                                                     \
    if (!world().why_not.empty()) GTEST_SKIP() << world().why_not;         \
    if (world().group->size() < 2) GTEST_SKIP() << "needs 2 GPUs";         \
  } while (0)

}  // namespace pk::prim::testing
