// NVSHMEM baseline "nvshmem" (coll_nvshmem.h): NVSHMEM's host-side on-stream collectives
// on NVSHMEM_TEAM_WORLD, the way its perftests call them (perftest/host/coll/*_on_stream:
// one PE per process and GPU, source and destination from nvshmem_malloc, the call on a
// stream), timed by the common harness like every other implementation.
//
// Only host functions of libnvshmem_host.so.3 are called here, so this file is ordinary
// CUDA (no relocatable device code); initialisation and the heap are
// pk::NvshmemRuntime (the harness's pkbench_nvshmem_runtime, shared with the primitives study).
//
// What runs underneath (NVSHMEM 3.x sources, src/host/coll/*): with NVLS off (always here:
// NVSHMEM_DISABLE_NVLS=1) each call launches one NVSHMEM kernel of one thread block, which
// synchronises the PEs itself (in-kernel barriers); with NCCL enabled inside NVSHMEM
// (NVSHMEM_USE_NCCL builds, libnccl.so.2 loadable) the calls would be forwarded to
// ncclAllReduce / ncclAllGather / ncclReduceScatter / grouped send-recv instead, i.e. NCCL
// again. NVSHMEM_DISABLE_NCCL=1 is therefore the default here (unless the user set it): the
// row measures NVSHMEM's own collectives, and its config says which path ran.
#include "microbench/collectives/coll_harness.h"
#include "microbench/collectives/coll_nvshmem.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "microbench/harness/cuda_check.h"

#ifdef PKBENCH_HAVE_NVSHMEM
#if __has_include(<nvshmem_host.h>)
#include <nvshmem_host.h>  // the host API alone (NVSHMEM >= 3.5)
#else
#include <nvshmem.h>
#include <nvshmemx.h>
#endif
#include "microbench/harness/nvshmem_runtime.h"
#endif

namespace pk::coll {

std::string nvshmem_process_reason(bool under_mpi, int processes, int local_gpus) {
  if (!under_mpi || processes < 2) return "NVSHMEM needs one process per GPU (run under mpirun)";
  if (local_gpus != 1)
    return "NVSHMEM needs one GPU per process (this process drives " + std::to_string(local_gpus) + ")";
  return "";
}

#ifndef PKBENCH_HAVE_NVSHMEM

class NvshmemState {};
void NvshmemStateDeleter::operator()(NvshmemState* s) const { delete s; }
NvshmemStatePtr make_nvshmem_state(Context&, const NcclSizes&) { return nullptr; }
bool built_with_nvshmem() { return false; }
ImplList nvshmem_impls() { return {}; }

#else

namespace {

// NVSHMEM's size syntax (NVSHMEM_SYMMETRIC_SIZE and friends): a number with an optional
// k/m/g/t suffix (powers of 1024). 0 when it does not parse.
uint64_t parse_nvshmem_size(const char* s) {
  if (!s || !*s) return 0;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || v < 0) return 0;
  double scale = 1;
  switch (*end) {
    case 'k': case 'K': scale = 1024.0; break;
    case 'm': case 'M': scale = 1024.0 * 1024; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
  }
  return static_cast<uint64_t>(v * scale + 0.5);
}

// NVSHMEM's boolean environment values: 1, y, yes, t, true (any case).
bool env_true(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return false;
  const char c = *v;
  return c == '1' || c == 'y' || c == 'Y' || c == 't' || c == 'T';
}

std::string env_or(const char* name, const char* dflt) {
  const char* v = std::getenv(name);
  return v ? v : dflt;
}

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

}  // namespace

class NvshmemState {
 public:
  NvshmemState(Context& ctx, const NcclSizes& sz) : ctx_(ctx) {
    PeerGroup& g = ctx.group;
    Comm& comm = g.comm();
    gpu_ = g.local_gpus().at(0);
    g.set_device(gpu_);
    in_bytes_ = std::max<uint64_t>(sz.user_in, 4096);
    out_bytes_ = std::max<uint64_t>(sz.user_out, 4096);
    // The heap: both buffers (2 MiB granules) plus NVSHMEM's own reservations (team sync
    // and scratch arrays) and slack. The user's value wins.
    const uint64_t mib2 = 2ull << 20;
    const uint64_t want = round_up(in_bytes_, mib2) + round_up(out_bytes_, mib2);
    const uint64_t heap = want + std::max<uint64_t>(256ull << 20, want / 8);
    if (!std::getenv("NVSHMEM_SYMMETRIC_SIZE")) setenv("NVSHMEM_SYMMETRIC_SIZE", std::to_string(heap).c_str(), 0);
    if (!std::getenv("NVSHMEM_DISABLE_NCCL")) setenv("NVSHMEM_DISABLE_NCCL", "1", 0);
    // NVSHMEM's local-only proxy thread (NVLink-only nodes) polls without yielding on the core mpirun
    // bound the rank to, the core the host-timed loop runs on: with it, the host-timed figure read
    // ~200 us per operation at 4 KiB, without it (this variable, or mpirun --bind-to none) 9.8 us,
    // device time unchanged (2fb8dca:results/h200x2/collectives/experiments/nvlink-98ca11c/). The thread serves
    // only device-side global exit and NVSHMEM's own wait-timeout polling, which the study does not use.
    if (!std::getenv("NVSHMEM_DISABLE_LOCAL_ONLY_PROXY")) setenv("NVSHMEM_DISABLE_LOCAL_ONLY_PROXY", "1", 0);
    own_kernels_ = env_true("NVSHMEM_DISABLE_NCCL");
    // The one-block reduce-scatter kernel stages all n blocks of its input in the team's
    // reduce scratch and asserts in the kernel past half of it (non_abi/device/coll/
    // reducescatter.cuh, nvshmemi_reducescatter_allpush_threadgroup).
    const uint64_t scratch = parse_nvshmem_size(std::getenv("NVSHMEM_REDUCE_SCRATCH_SIZE"));
    rs_limit_ = (scratch ? scratch : (1ull << 19)) / 2;
    try {
      rt_ = std::make_unique<NvshmemRuntime>(comm, comm.local_size() == comm.size());
      in_ = rt_->alloc(in_bytes_, "NVSHMEM collective input");
      out_ = rt_->alloc(out_bytes_, "NVSHMEM collective output");
      int major = 0, minor = 0, patch = 0;
      nvshmemx_vendor_get_version_info(&major, &minor, &patch);
      version_ = "NVSHMEM " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
      if (comm.rank() == 0)
        std::fprintf(stderr, "pkbench_collectives: %s; heap NVSHMEM_SYMMETRIC_SIZE=%s; NVSHMEM_DISABLE_NCCL=%s; "
                     "NVSHMEM_DISABLE_NVLS=%s\n", rt_->describe().c_str(), env_or("NVSHMEM_SYMMETRIC_SIZE", "?").c_str(),
                     env_or("NVSHMEM_DISABLE_NCCL", "(unset)").c_str(),
                     env_or("NVSHMEM_DISABLE_NVLS", "(unset)").c_str());
    } catch (const std::exception& e) {
      error_ = std::string("NVSHMEM setup failed: ") + e.what();
      in_ = out_ = nullptr;
    }
  }

  ~NvshmemState() {
    ctx_.group.set_device(gpu_);
    rt_.reset();  // synchronises, frees the buffers, nvshmem_finalize
  }

  const std::string& error() const { return error_; }
  void* in() const { return in_; }
  void* out() const { return out_; }
  uint64_t in_bytes() const { return in_bytes_; }
  uint64_t out_bytes() const { return out_bytes_; }
  bool own_kernels() const { return own_kernels_; }
  uint64_t reducescatter_limit() const { return rs_limit_; }
  const std::string& version() const { return version_; }

 private:
  Context& ctx_;
  int gpu_ = 0;
  std::unique_ptr<NvshmemRuntime> rt_;
  void *in_ = nullptr, *out_ = nullptr;
  uint64_t in_bytes_ = 0, out_bytes_ = 0, rs_limit_ = 0;
  bool own_kernels_ = true;
  std::string error_, version_;
};

void NvshmemStateDeleter::operator()(NvshmemState* s) const { delete s; }
NvshmemStatePtr make_nvshmem_state(Context& ctx, const NcclSizes& sizes) {
  return NvshmemStatePtr(new NvshmemState(ctx, sizes));
}
bool built_with_nvshmem() { return true; }

namespace {

// NVSHMEM's on-stream collective of each layout it serves, on NVSHMEM_TEAM_WORLD, by dtype;
// `op` is its name's middle (nvshmemx_<type>_<op>_on_stream). A layout not listed has none.
struct NvshmemColl {
  int layout;
  const char* op;
  int (*bf16)(__nv_bfloat16*, const __nv_bfloat16*, size_t, cudaStream_t);
  int (*f32)(float*, const float*, size_t, cudaStream_t);
};
#define PK_NVSHMEM_COLL(LAYOUT, OP)                                                                        \
  NvshmemColl {                                                                                            \
    LAYOUT, #OP,                                                                                           \
        [](__nv_bfloat16* d, const __nv_bfloat16* s, size_t n, cudaStream_t st) {                          \
          return nvshmemx_bfloat16_##OP##_on_stream(NVSHMEM_TEAM_WORLD, d, s, n, st);                      \
        },                                                                                                 \
        [](float* d, const float* s, size_t n, cudaStream_t st) {                                          \
          return nvshmemx_float_##OP##_on_stream(NVSHMEM_TEAM_WORLD, d, s, n, st);                         \
        }                                                                                                  \
  }
const NvshmemColl kNvshmemColls[] = {PK_NVSHMEM_COLL(kAllReduce, sum_reduce), PK_NVSHMEM_COLL(kAllGather, fcollect),
                                     PK_NVSHMEM_COLL(kReduceScatter, sum_reducescatter),
                                     PK_NVSHMEM_COLL(kAllToAll, alltoall)};
#undef PK_NVSHMEM_COLL

const NvshmemColl* nvshmem_coll(int layout) {
  for (const NvshmemColl& c : kNvshmemColls)
    if (c.layout == layout) return &c;
  return nullptr;
}

std::string nvshmem_call(int layout, DType t) {
  return std::string("nvshmemx_") + (t == DType::bf16 ? "bfloat16" : "float") + "_" + nvshmem_coll(layout)->op +
         "_on_stream";
}

class NvshmemImpl final : public Impl {
 public:
  std::string name() const override { return "nvshmem"; }
  std::string family() const override { return "nvshmem"; }
  bool baseline() const override { return true; }
  // The plain layouts: NVSHMEM's collectives move contiguous per-PE blocks (the
  // tensor-dimension layouts would need reshape copies, as NCCL's do: not measured).
  bool supports(int layout) const override { return nvshmem_coll(layout) != nullptr; }
  // Graph mode: NVSHMEM 3.x's on-stream kernels are capturable (measured: every graph point of
  // results/h200x2/collectives ran and verified); a capture failure is an error row like any other.

  std::string unavailable(const Problem& p, Context& ctx) const override {
    if (!ctx.nvshmem) {
      if (const std::string v = ctx.group.library_skip_reason("NVSHMEM"); !v.empty()) return v;
      const std::string why = nvshmem_process_reason(ctx.group.comm().is_mpi(), ctx.group.processes(),
                                                     static_cast<int>(ctx.group.local_gpus().size()));
      return why.empty() ? "NVSHMEM not set up in this run" : why;
    }
    const NvshmemState& st = *ctx.nvshmem;
    if (!st.error().empty()) return st.error();
    const uint64_t e = p.elem_bytes();
    if (p.in_elems * e > st.in_bytes() || p.out_elems * e > st.out_bytes())
      return "larger than the NVSHMEM buffers of this run";
    if (p.layout == kReduceScatter && st.own_kernels() && p.in_elems * e > st.reducescatter_limit())
      return "NVSHMEM's reduce-scatter kernel takes at most NVSHMEM_REDUCE_SCRATCH_SIZE / 2 = " +
             std::to_string(st.reducescatter_limit()) + " B of input per PE (it asserts beyond)";
    return "";
  }

  void prepare(const Problem& p, Context& ctx) override {
    ctx_ = &ctx;
    p_ = p;
  }
  void* input(int) override { return ctx_->nvshmem->in(); }
  void* output(int) override { return ctx_->nvshmem->out(); }

  void enqueue(int, cudaStream_t s) override {
    const NvshmemState& st = *ctx_->nvshmem;
    const size_t n = p_.count;  // reduce: the vector; fcollect / reducescatter / alltoall: one PE's block
    const NvshmemColl& c = *nvshmem_coll(p_.layout);
    const int rc = p_.dtype == DType::bf16
                       ? c.bf16(static_cast<__nv_bfloat16*>(st.out()), static_cast<const __nv_bfloat16*>(st.in()), n, s)
                       : c.f32(static_cast<float*>(st.out()), static_cast<const float*>(st.in()), n, s);
    if (rc == 0) return;
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(s, &cs);
    const std::string what = nvshmem_call(p_.layout, p_.dtype) + " returned " + std::to_string(rc);
    if (cs != cudaStreamCaptureStatusNone) throw SkipPoint(what + " during CUDA-graph capture");
    throw std::runtime_error(what);
  }

  std::string config() const override {
    if (!ctx_ || !ctx_->nvshmem) return "";
    const NvshmemState& st = *ctx_->nvshmem;
    std::string c = st.version() + " " + nvshmem_call(p_.layout, p_.dtype) + " team world";
    c += st.own_kernels() ? "; NVSHMEM kernels (NVSHMEM_DISABLE_NCCL=1)" : "; via NCCL if loadable (NVSHMEM_DISABLE_NCCL off)";
    const char* proxy = std::getenv("NVSHMEM_DISABLE_LOCAL_ONLY_PROXY");
    c += std::string("; NVSHMEM_DISABLE_LOCAL_ONLY_PROXY=") + (proxy ? proxy : "unset");
    return c;
  }

 private:
  Context* ctx_ = nullptr;
  Problem p_;
};

}  // namespace

ImplList nvshmem_impls() { return {std::make_shared<NvshmemImpl>()}; }

#endif  // PKBENCH_HAVE_NVSHMEM

}  // namespace pk::coll
