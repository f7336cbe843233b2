// NCCL 2.28 device API: communicators from harness/nccl_comms.h (a unique id broadcast over
// pk::Comm, grouped initialisation when one process drives every GPU), symmetric windows from
// ncclMemAlloc + ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC), a device communicator with
// one LSA barrier (ncclDevCommCreate), kernels that take the ncclDevComm and windows by value.
#include <nccl.h>
#include <nccl_device.h>

#include <memory>

#include "kernels/primitives/nccl_style.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/nccl_comms.h"
#include "microbench/harness/point_cost.h"
#include "microbench/primitives/measure.h"

namespace pk::prim {
namespace {

struct Window {
  uint64_t bytes = 0;
  std::map<int, void*> ptr;          // each local GPU's own buffer
  std::map<int, ncclWindow_t> win;   // each local GPU's window handle (device pointer)
};

class NcclRuntime {
 public:
  explicit NcclRuntime(Context& c) : c_(c) {
    int v = 0;
    PK_NCCL_CHECK(ncclGetVersion(&v));
    // The device API's structures are compiled from the headers: they must match the library.
    if (v / 100 != NCCL_VERSION_CODE / 100)
      throw std::runtime_error("libnccl is " + std::to_string(v) + " but the headers are " +
                               std::to_string(NCCL_VERSION_CODE) + ": the device API's structures may differ");
    PeerGroup& g = c.group();
    comms_ = make_nccl_comms(g);
    collectively(c.comm(), [&] {
#ifdef NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER
      ncclDevCommRequirements reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#else
      ncclDevCommRequirements reqs{};
#endif
      reqs.lsaBarrierCount = 1;
      PK_NCCL_CHECK(ncclGroupStart());
      for (auto& [gpu, comm] : comms_) {
        g.set_device(gpu);
        PK_NCCL_CHECK(ncclDevCommCreate(comm, &reqs, &dev_[gpu]));
      }
      PK_NCCL_CHECK(ncclGroupEnd());
    });
  }
  ~NcclRuntime() {
    for (auto& [gpu, comm] : comms_) {
      c_.group().set_device(gpu);
      cudaDeviceSynchronize();
    }
    ncclGroupStart();
    for (auto& [name, w] : windows_)
      for (auto& [gpu, h] : w.win) ncclCommWindowDeregister(comms_.at(gpu), h);
    for (auto& [gpu, d] : dev_) ncclDevCommDestroy(comms_.at(gpu), &d);
    ncclGroupEnd();
    for (auto& [name, w] : windows_)
      for (auto& [gpu, p] : w.ptr) {
        c_.group().set_device(gpu);
        ncclMemFree(p);
      }
    for (auto& [gpu, comm] : comms_) ncclCommDestroy(comm);
  }

  const Window& window(const std::string& name, uint64_t bytes) {
    auto it = windows_.find(name);
    if (it != windows_.end()) return it->second;
    point_cost::Phase cost("setup");
    Window w;
    w.bytes = bytes;
    collectively(c_.comm(), [&] {
      for (auto& [gpu, comm] : comms_) {
        c_.group().set_device(gpu);
        void* p = nullptr;
        PK_NCCL_CHECK(ncclMemAlloc(&p, bytes));
        PK_CUDA_CHECK(cudaMemset(p, 0, bytes));
        PK_CUDA_CHECK(cudaDeviceSynchronize());
        w.ptr[gpu] = p;
      }
      PK_NCCL_CHECK(ncclGroupStart());
      for (auto& [gpu, comm] : comms_) {
        c_.group().set_device(gpu);
        PK_NCCL_CHECK(ncclCommWindowRegister(comm, w.ptr[gpu], bytes, &w.win[gpu], NCCL_WIN_COLL_SYMMETRIC));
      }
      PK_NCCL_CHECK(ncclGroupEnd());
    });
    return windows_[name] = w;
  }
  const ncclDevComm& dev(int gpu) const { return dev_.at(gpu); }

  // The address `from` uses for `owner`'s copy of the window (ncclGetLsaPointer on the device).
  void* lsa_pointer(const Window& w, int from, int owner) {
    void** out = reinterpret_cast<void**>(c_.mismatches(from));
    nccl_pointer_kernel<<<1, 1>>>(w.win.at(from), owner, out);
    PK_CUDA_CHECK_LAUNCH();
    void* p = nullptr;
    PK_CUDA_CHECK(cudaMemcpy(&p, out, sizeof p, cudaMemcpyDeviceToHost));
    return p;
  }

 private:
  Context& c_;
  std::map<int, ncclComm_t> comms_;
  std::map<int, ncclDevComm> dev_;
  std::map<std::string, Window> windows_;
};

std::unique_ptr<NcclRuntime> g_nccl;
std::string g_nccl_error;

NcclRuntime& runtime(Context& c) {
  // Virtual ranks share one device, which NCCL refuses: a skipped point, not an error.
  if (const std::string why = c.group().library_skip_reason("NCCL"); !why.empty()) throw SkipPoint(why);
  if (!g_nccl && g_nccl_error.empty()) {
    try {
      g_nccl = std::make_unique<NcclRuntime>(c);
    } catch (const std::exception& e) {
      g_nccl_error = e.what();
    }
    g_nccl_error = c.comm().first_error(g_nccl_error);
  }
  if (!g_nccl_error.empty()) throw std::runtime_error("NCCL set-up failed: " + g_nccl_error);
  return *g_nccl;
}

constexpr uint64_t kFlagBytes = 4096, kPayloadOffset = 128;

Row put(Context& c, NcclRuntime& n, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = put_buffer_bytes(c);
  const SymBuf& src = c.buf("put_src", bytes);
  const Window& w = n.window("put_dst", bytes);
  void* src_a = c.drives(a) ? src.local(a) : nullptr;
  void* dst_b = c.drives(b) ? w.ptr.at(b) : nullptr;
  return measure_put(c, s, src_a, dst_b, [&](cudaStream_t st, int grid, int block, const PutShape& sh, bool timed) {
    uint32_t* cyc = timed ? c.cycles(a) : nullptr;
    TimingRecord* rec = timed ? c.record(a) : nullptr;
    const auto* s4 = static_cast<const uint32_t*>(src_a);
    if (s.mode == "reg")
      element_put_kernel<<<grid, block, 0, st>>>(NcclPut<uint32_t, true>{w.win.at(a), b, s4, kPutSeed}, sh, cyc, rec);
    else if (s.elem_bytes == 4)
      element_put_kernel<<<grid, block, 0, st>>>(NcclPut<uint32_t>{w.win.at(a), b, s4, kPutSeed}, sh, cyc, rec);
    else
      element_put_kernel<<<grid, block, 0, st>>>(
          NcclPut<uint4>{w.win.at(a), b, static_cast<const uint4*>(src_a), kPutSeed}, sh, cyc, rec);
  });
}

const char* chain_name(const Context& c, uint64_t bytes) {
  return bytes == c.opt().chain_small_bytes ? "chain_small" : "chain_large";
}

Row get(Context& c, NcclRuntime& n, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = chain_bytes(c, s);
  const Window& w = n.window(chain_name(c, bytes), bytes);
  uint64_t* on_owner = c.drives(b) ? static_cast<uint64_t*>(w.ptr.at(b)) : nullptr;
  return measure_chain(c, s, a, b, on_owner, bytes, [&](cudaStream_t st, int hops) {
    chain_kernel<<<1, 32, 0, st>>>(NcclLoad{w.win.at(a), b}, hops, c.cycles(a), c.record(a));
  });
}

Row pingpong(Context& c, NcclRuntime& n, const Spec& s) {
  const int a = c.a(), b = c.b(), total = c.total_iters();
  const Window& w = n.window("flags", kFlagBytes);
  const SymBuf& psrc = pingpong_payload(c);
  auto reset = pingpong_reset(c, psrc, [&](int g) { PK_CUDA_CHECK(cudaMemset(w.ptr.at(g), 0, kFlagBytes)); });
  return measure_pingpong(c, s, reset, [&](int gpu, cudaStream_t st, bool init) {
    const int partner = init ? b : a;
    const auto* src = reinterpret_cast<const uint4*>(psrc.local(gpu));
    if (s.elem_bytes)
      pingpong_kernel<<<1, 32, 0, st>>>(NcclSide<true>{w.win.at(gpu), 0, kPayloadOffset, partner, src, partner}, init,
                                        total, c.cycles(gpu), c.record(gpu), c.mismatches(gpu), c.deadline(gpu));
    else
      pingpong_kernel<<<1, 32, 0, st>>>(NcclSide<false>{w.win.at(gpu), 0, kPayloadOffset, partner, src, partner}, init,
                                        total, c.cycles(gpu), c.record(gpu), c.mismatches(gpu), c.deadline(gpu));
  });
}

Row barrier(Context& c, NcclRuntime& n, const Spec& s) {
  if (c.group().size() != 2)
    throw SkipPoint("the NCCL barrier spans the whole communicator: run it on exactly 2 GPUs");
  return measure_barrier(
      c, s, [] {},
      [&](int gpu, cudaStream_t st) {
        if (s.ordering == kOrderRelaxed)
          nccl_barrier_kernel<true><<<1, 32, 0, st>>>(n.dev(gpu), c.total_iters(), c.cycles(gpu), c.record(gpu),
                                                      c.deadline(gpu));
        else
          nccl_barrier_kernel<false><<<1, 32, 0, st>>>(n.dev(gpu), c.total_iters(), c.cycles(gpu), c.record(gpu),
                                                       c.deadline(gpu));
      });
}

}  // namespace

Row run_nccl(Context& c, const Spec& s) {
  NcclRuntime& n = runtime(c);
  if (s.op == "put") return put(c, n, s);
  if (s.op == "get") return get(c, n, s);
  if (s.op == "signal" || s.op == "put_signal" || s.op == kOpLonelyWait) return pingpong(c, n, s);
  if (s.op == "barrier") return barrier(c, n, s);
  throw std::logic_error("nccl_dev style has no operation " + s.op);
}

ForeignChain nccl_chain(Context& c, uint64_t bytes, int reader, int owner) {
  NcclRuntime& n = runtime(c);
  const Window& w = n.window(chain_name(c, bytes), bytes);
  ForeignChain ch;
  if (c.drives(owner)) ch.on_owner = static_cast<uint64_t*>(w.ptr.at(owner));
  c.on(reader, [&] { ch.reader_view = static_cast<const uint64_t*>(n.lsa_pointer(w, reader, owner)); });
  return ch;
}

void release_nccl() { g_nccl.reset(); }

std::string nccl_version_text() {
  int v = 0;
  ncclGetVersion(&v);
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

}  // namespace pk::prim
