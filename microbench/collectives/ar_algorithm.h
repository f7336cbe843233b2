#pragma once
// One all-reduce algorithm of ours = one file microbench/collectives/ar_<name>.cu plus one
// line PK_ALL_REDUCE(<name>) in ar_list.h. The file defines `const ArAlgorithm& ar_<name>()`
// (PK_DEFINE_ALL_REDUCE): its kernel (kernels/collectives/) and how the study sizes its grid and scratch; the line
// gives it its name and its place in the row order. all_reduce.cu turns every listed
// algorithm into an implementation (timing, checks, launch knobs and the `tuned` answers come
// with it) and launches its kernel through the pointer it names, so there is no per-algorithm
// switch: a name that is not listed is not registered, and --impls refuses it.
// (An X-macro list rather than self-registering static objects: the algorithms live in the
// static library pkbench_coll_core, whose unreferenced objects the linker would drop.)
#include <cuda_bf16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/collectives/coll_params.cuh"
#include "microbench/collectives/coll_problem.h"

namespace pk::coll {

// The kernel of each dtype; every all-reduce kernel takes its CollParams<T> by value, and the
// types make a kernel of any other signature a compile error here rather than a bad launch.
struct ArKernels {
  void (*bf16)(CollParams<__nv_bfloat16>);
  void (*f32)(CollParams<float>);
  const void* of(DType t) const {
    return t == DType::bf16 ? reinterpret_cast<const void*>(bf16) : reinterpret_cast<const void*>(f32);
  }
};

// The kernel template K's two instantiations.
#define PK_AR_KERNELS(K) (ArKernels{K<__nv_bfloat16>, K<float>})

class ArAlgorithm {
 public:
  virtual ~ArAlgorithm() = default;
  virtual ArKernels kernels() const = 0;
  // Threads per block by default (auto), which is also its __launch_bounds__: the knob
  // --coll-threads may lower it to one warp (the kernels stride by blockDim; the signals
  // need a thread per rank).
  virtual int threads() const = 0;
  // The auto grid: work_bytes / bytes_per_block blocks, capped at what is resident at once.
  virtual uint64_t bytes_per_block() const = 0;
  virtual uint64_t work_bytes(const Problem& p) const { return p.bytes; }
  // Scratch per rank when the grid is `blocks` (the largest the point can choose).
  virtual uint64_t scratch_bytes(const Problem&, int /*blocks*/) const { return 0; }
  // CollParams::slot_elems: the stride of its landing slots in scratch.
  virtual uint64_t slot_elems(const Problem& p) const { return chunk_slot_elems(p); }
  virtual size_t smem_bytes() const { return 0; }
  // CollParams::handshake (ablation (b)).
  virtual int handshake() const { return 0; }
  // false: no point is registered at this problem (e.g. above the size range it serves).
  virtual bool applies(const Problem&) const { return true; }
  // Scratch zeroed before each point (a protocol whose flags live in the data lines).
  virtual bool zero_scratch() const { return false; }
  // Its kernel issues TMA / bulk-copy instructions (capability gating: sm_90 and later).
  virtual bool uses_tma() const { return false; }
  // CollParams::rounds for a grid of `blocks` (pipelined kernels; 1: one round).
  virtual int rounds(const Problem&, int /*blocks*/) const { return 1; }
  // The study also registers its twin launched with programmatic dependent launch, named
  // <name>_pdl (the small-message algorithms, where a launch's start is a share of the time).
  virtual bool pdl_twin() const { return false; }

  // The two-shot landing slot of one rank's chunk, padded to whole TMA tiles (16-B aligned
  // for every kernel); and n of them, the two-shot slot scratch.
  static uint64_t chunk_slot_elems(const Problem& p);
  static uint64_t chunk_slots_bytes(const Problem& p) { return static_cast<uint64_t>(p.n) * chunk_slot_elems(p) * p.elem_bytes(); }
};

// An algorithm whose default threads and block bytes are its kernel config's kThreads and
// kBytesPerBlock (every kernel header declares them so).
template <class Config>
class ArAlgorithmOf : public ArAlgorithm {
  int threads() const override { return Config::kThreads; }
  uint64_t bytes_per_block() const override { return Config::kBytesPerBlock; }
};

// Defines `const ArAlgorithm& ar_NAME()`, the function ar_list.h's line names, returning one
// algorithm object made by the expression after NAME (e.g. OneShot{}, TwoShotPush(1)).
#define PK_DEFINE_ALL_REDUCE(NAME, ...)   \
  const ArAlgorithm& ar_##NAME() {        \
    static const auto algorithm = __VA_ARGS__; \
    return algorithm;                     \
  }

// Every listed algorithm with its name, in ar_list.h's order (the order of the rows).
struct ArEntry {
  std::string name;
  const ArAlgorithm* algo;
};
const std::vector<ArEntry>& all_reduce_algorithms();

}  // namespace pk::coll
