#pragma once
// The collective study's plain C++ core (the CPU tests build it): element types, the
// collectives (each declared once: collective.h, registered in coll_list.h) and what is
// asked of them by name or layout code, byte size -> element counts (the nccl-tests
// convention), the NCCL configurations and the multicast refusal rules.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/collectives/coll_reference.cuh"
#include "kernels/collectives/seg_layout.cuh"
#include "microbench/collectives/collective.h"
#include "microbench/harness/stats.h"

namespace pk::coll {

enum class DType { bf16, f32 };
const std::vector<std::string>& dtype_names();  // bf16, fp32
DType parse_dtype(const std::string& s);         // ArgError "unsupported dtype"
std::string dtype_name(DType t);
uint64_t dtype_bytes(DType t);
inline int dtype_code(DType t) { return t == DType::bf16 ? kBf16 : kF32; }

// Collectives, in report order (coll_list.h); each has one layout code.
const std::vector<std::string>& collective_names();
int layout_of(const std::string& coll);  // ArgError naming --collectives for an unknown name
// nccl-tests' factors (the collective's declaration): all-reduce 2(n-1)/n; all-gather,
// reduce-scatter, all-to-all (n-1)/n; 0 below one rank.
double busbw_factor(int layout, int n);
// Its output is a sum over ranks (rounding allowed), not a copy (exact).
bool layout_reduces(int layout);

enum class LaunchMode { eager, graph };
const std::vector<std::string>& launch_mode_names();  // eager, graph
std::string launch_mode_name(LaunchMode m);

// Shapes of the tensor-dimension collectives (Figures 15-17).
struct TensorDims {
  uint64_t cols = 2048;     // *_cols: columns per rank (the gathered/scattered last dimension)
  uint64_t batch = 1;       // all_to_all_4d: B
  uint64_t heads = 32;      // H (scattered; a multiple of the rank count)
  uint64_t head_dim = 128;  // D
};

// One problem: what `bytes` means follows nccl-tests' "size" (all-reduce: the vector;
// all-gather: the gathered output; reduce-scatter: the scattered input; all-to-all: one
// rank's send buffer).
struct Problem {
  std::string coll;
  const Collective* collective = nullptr;  // its declaration
  int layout = kAllReduce;
  DType dtype = DType::bf16;
  int n = 2;
  uint64_t bytes = 0;
  uint64_t count = 0;      // the count argument NCCL gets (per-rank block; all-reduce: all)
  uint64_t in_elems = 0;   // per rank
  uint64_t out_elems = 0;  // per rank
  uint64_t rows = 0, cols = 0;          // *_cols
  uint64_t B = 0, Sl = 0, H = 0, D = 0; // all_to_all_4d (Sl = sequence per rank)
  uint64_t elem_bytes() const { return dtype_bytes(dtype); }
  double factor() const { return busbw_factor(layout, n); }
  // nccl-tests' algbw: size / time.
  double algbw_gbps(double seconds) const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0; }
  RefSpec ref(int rank, uint64_t seed) const;
  std::string describe() const;
};

// ArgError naming --sizes when `bytes` does not split into whole elements and ranks, or the
// tensor dimensions do not fit.
Problem make_problem(const std::string& coll, DType dtype, uint64_t bytes, int n, const TensorDims& dims);
// Bytes of one step of `bytes` for this collective: sizes must be multiples of it.
uint64_t size_unit(const std::string& coll, DType dtype, int n, const TensorDims& dims);
// The same from an explicit per-rank element count (the GPU tests use odd counts): count is
// what NCCL's count argument would be (cols/4-D layouts: rows resp. Sl = count / row).
Problem make_problem_count(const std::string& coll, DType dtype, uint64_t count, int n, const TensorDims& dims);

// Direct push layout (push_segments.cuh) of a segment collective; reduce-scatter layouts
// index the landing slots and the output alike. ArgError for a collective without one.
SegLayout direct_layout(const Problem& p, uint64_t piece_bytes);
// The reshape copies around NCCL (collective.h: ReshapePlan) of p's collective.
ReshapePlan nccl_reshape_plan(const Problem& p, uint64_t piece_bytes);

// The launch knobs of our kernels, declared once: the grid (`sms`: blocks, one per SM,
// every one resident at once) and the threads per block. 0 = "auto": the implementation's
// own choice (grid from the bytes a block should move, its kernel's default threads), which
// is what every run before the knobs measured. The study sweeps --coll-sms x --coll-threads;
// each of our implementations refuses the values its kernel cannot launch (Impl::knob_refusal);
// the baselines (NCCL, NVSHMEM) pick their own grids and take no knobs.
struct LaunchKnobs {
  int sms = 0, threads = 0;
  bool is_auto() const { return sms == 0 && threads == 0; }
  bool operator==(const LaunchKnobs& o) const { return sms == o.sms && threads == o.threads; }
  // "auto", or "sms=8 threads=auto" (the CSV's `knobs` cell and the points' names).
  std::string text() const;
};
// A knob's values: "auto" or a comma list of "auto" and positive integers (duplicates
// dropped, order kept). ArgError naming the flag for anything else; threads must also be a
// multiple of 32 (whole warps) and at most 1024 (CUDA's block limit).
enum class Knob { sms, threads };
const char* knob_flag(Knob k);  // --coll-sms, --coll-threads
std::vector<int> parse_knob_list(Knob k, const std::string& text);
// Every pair of the two lists (sms-major), auto first where given.
std::vector<LaunchKnobs> knob_grid(const std::vector<int>& sms, const std::vector<int>& threads);

// Quantile q in [0,1] with linear interpolation (p10, p90 of the samples): the harness's.
using ::pk::quantile;

std::string nccl_func_name(int layout);  // its collective's NCCL function: AllReduce, AllGather, ...

// The NCCL configurations a user would try, each a baseline of its own: NCCL's default, the
// symmetric window (ncclCommWindowRegister, nccl-tests -R 2), and NCCL_PROTO x NCCL_ALGO
// forced for one communicator (NCCL reads both when a communicator is created).
struct NcclConfig {
  // As --nccl-configs, the nccl_config column and pkbench_coll_ref's --nccl-tests=CONFIG:FILE
  // all name it: default, symmetric, LL/Ring, ... (no comma: a CSV cell as written).
  std::string name;
  std::string proto, algo;  // NCCL_PROTO, NCCL_ALGO; empty: NCCL chooses
  bool symmetric = false;
  std::string impl_name() const;  // nccl, nccl_sym, nccl_ll_ring, ...
};
const std::vector<NcclConfig>& nccl_configs();  // every one, in report order
// "all" or a comma list of names; ArgError naming --nccl-configs for an unknown one.
std::vector<NcclConfig> parse_nccl_configs(const std::string& list);
// "" when NCCL takes the configuration for this layout's function, else why not (a skipped row).
std::string nccl_config_refusal(const NcclConfig& c, int layout);

// NVSwitch multicast refusal rules (docs/architecture.md, Multicast): "" when allowed, else why not. getenv is
// injectable for the tests. device_supports: 1 yes, 0 no, -1 not known (refused).
std::string multicast_refusal(bool allow_flag, int device_supports,
                              const std::function<const char*(const char*)>& getenv_fn);

}  // namespace pk::coll
