// NVSHMEM 3.8 through its public device API (kernels/primitives/nvshmem_style.cuh says what
// each call does). One PE per process: under mpirun every rank drives its GPU and is PE =
// rank; in single-process mode the rows are skipped. Built with relocatable device code and
// device-linked against libnvshmem_device.a; the rest of the study is built without it.
#include <cstdio>
#include <memory>

#include "kernels/primitives/nvshmem_style.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/primitives/measure.h"
#include "microbench/harness/nvshmem_runtime.h"

namespace pk::prim {
namespace {

constexpr uint64_t kFlagBytes = 4096, kPayloadOffset = 128, kHelloOffset = 256, kCounterOffset = 512;
constexpr uint64_t kMeetOffset = 64;  // the signal ping-pong's bounded handshake (zeroed with the flags)

struct Heap {
  std::unique_ptr<NvshmemRuntime> rt;
  std::map<std::string, void*> bufs;
  uint64_t hello_generation = 0;
  void* buf(const std::string& name, uint64_t bytes) {
    auto it = bufs.find(name);
    if (it != bufs.end()) return it->second;
    return bufs[name] = rt->alloc(bytes, name);
  }
};

std::unique_ptr<Heap> g_heap;
std::string g_error;

Heap& heap(Context& c) {
  if (c.comm().size() == 1)
    throw SkipPoint("NVSHMEM needs one process per GPU: run under mpirun -np " + std::to_string(c.group().size()));
  if (c.comm().size() != c.group().size())
    throw SkipPoint("NVSHMEM needs one process per GPU of the group");
  if (!g_heap && g_error.empty()) {
    try {
      c.group().set_device(c.group().local_gpus().at(0));
      bool one_node = true;
      for (const auto& g : c.group().topology().gpus) one_node = one_node && g.host == c.group().topology().gpus[0].host;
      auto h = std::make_unique<Heap>();
      h->rt = std::make_unique<NvshmemRuntime>(c.comm(), one_node);
      if (c.comm().rank() == 0) std::fprintf(stderr, "%s\n", h->rt->describe().c_str());
      g_heap = std::move(h);
    } catch (const std::exception& e) {
      g_error = e.what();
    }
    g_error = c.comm().first_error(g_error);
  }
  if (!g_error.empty()) throw std::runtime_error("NVSHMEM set-up failed: " + g_error);
  return *g_heap;
}

template <class T, class Go>
void with_put_policy(const Spec& s, T* dst, const T* src, int pe, Go go) {
  const bool nbi = s.mode == "nbi";
  if (s.scope == "thread") {
    if (nbi) go(NvshmemPut<T, Scope::thread, true>{dst, src, pe, 0});
    else go(NvshmemPut<T, Scope::thread, false>{dst, src, pe, 0});
  } else if (s.scope == "warp") {
    if (nbi) go(NvshmemPut<T, Scope::warp, true>{dst, src, pe, 0});
    else go(NvshmemPut<T, Scope::warp, false>{dst, src, pe, 0});
  } else {
    if (nbi) go(NvshmemPut<T, Scope::block, true>{dst, src, pe, 0});
    else go(NvshmemPut<T, Scope::block, false>{dst, src, pe, 0});
  }
}

Row put(Context& c, Heap& h, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = put_buffer_bytes(c);
  const SymBuf& src = c.buf("put_src", bytes);
  void* dst = h.buf("put_dst", bytes);  // symmetric: the same address is each PE's own copy
  void* src_a = c.drives(a) ? src.local(a) : nullptr;
  return measure_put(c, s, src_a, dst, [&](cudaStream_t st, int grid, int block, const PutShape& sh, bool timed) {
    uint32_t* cyc = timed ? c.cycles(a) : nullptr;
    TimingRecord* rec = timed ? c.record(a) : nullptr;
    auto go = [&](auto policy) { element_put_kernel<<<grid, block, 0, st>>>(policy, sh, cyc, rec); };
    if (s.mode == "reg")
      go(NvshmemPutReg{static_cast<uint32_t*>(dst), nullptr, b, kPutSeed});
    else if (s.elem_bytes == 4)
      with_put_policy(s, static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src_a), b, go);
    else
      with_put_policy(s, static_cast<uint4*>(dst), static_cast<const uint4*>(src_a), b, go);
  });
}

const char* chain_name(const Context& c, uint64_t bytes) {
  return bytes == c.opt().chain_small_bytes ? "chain_small" : "chain_large";
}

Row get(Context& c, Heap& h, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = chain_bytes(c, s);
  auto* sym = static_cast<uint64_t*>(h.buf(chain_name(c, bytes), bytes));
  return measure_chain(c, s, a, b, sym, bytes, [&](cudaStream_t st, int hops) {
    chain_kernel<<<1, 32, 0, st>>>(NvshmemLoad{sym, b}, hops, c.cycles(a), c.record(a));
  });
}

Row pingpong(Context& c, Heap& h, const Spec& s) {
  const int a = c.a(), b = c.b(), total = c.total_iters();
  char* flags = static_cast<char*>(h.buf("flags", kFlagBytes));
  const SymBuf& psrc = pingpong_payload(c);
  auto reset = pingpong_reset(c, psrc, [&](int) { PK_CUDA_CHECK(cudaMemset(flags, 0, kPayloadOffset + sizeof(uint4))); });
  return measure_pingpong(c, s, reset, [&](int gpu, cudaStream_t st, bool init) {
    const int partner = init ? b : a;
    auto* sig = reinterpret_cast<uint64_t*>(flags);
    auto* data = reinterpret_cast<uint4*>(flags + kPayloadOffset);
    const auto* src = reinterpret_cast<const uint4*>(psrc.local(gpu));
    auto go = [&](auto side) {
      pingpong_kernel<<<1, 32, 0, st>>>(side, init, total, c.cycles(gpu), c.record(gpu), c.mismatches(gpu),
                                        c.deadline(gpu));
    };
    auto* meet = reinterpret_cast<uint64_t*>(flags + kMeetOffset);
    if (s.op == "put_signal") go(NvshmemSide<NvshmemSignal::put_signal, true>{sig, meet, data, src, partner, partner});
    else if (s.mode == "add") go(NvshmemSide<NvshmemSignal::add, true>{sig, meet, data, src, partner, partner});
    else if (s.mode == kNvshmemBoundedMode)
      go(NvshmemSide<NvshmemSignal::set, false>{sig, meet, data, src, partner, partner});
    else go(NvshmemSide<NvshmemSignal::set, true>{sig, meet, data, src, partner, partner});
  });
}

Row completion(Context& c, Heap& h, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = put_buffer_bytes(c);
  const SymBuf& src = c.buf("put_src", bytes);
  auto* dst = static_cast<uint32_t*>(h.buf("put_dst", bytes));
  return measure_single(c, s, [&](cudaStream_t st) {
    const auto* from = reinterpret_cast<const uint32_t*>(src.local(a));
    const int n = c.total_iters();
    if (s.op == "quiet")
      completion_kernel<<<1, 32, 0, st>>>(NvshmemComplete<NvshmemCompletion::quiet>{dst, from, b}, n, c.cycles(a),
                                          c.record(a));
    else if (s.op == "fence")
      completion_kernel<<<1, 32, 0, st>>>(NvshmemComplete<NvshmemCompletion::fence>{dst, from, b}, n, c.cycles(a),
                                          c.record(a));
    else
      completion_kernel<<<1, 32, 0, st>>>(NvshmemComplete<NvshmemCompletion::none>{dst, from, b}, n, c.cycles(a),
                                          c.record(a));
  });
}

Row barrier(Context& c, Heap& h, const Spec& s) {
  const int a = c.a(), b = c.b();
  if (c.group().size() != 2) throw SkipPoint("nvshmem_barrier_all spans every PE: run it on exactly 2 GPUs");
  char* flags = static_cast<char*>(h.buf("flags", kFlagBytes));
  const uint64_t gen = ++h.hello_generation;
  return measure_barrier(
      c, s, [] {},
      [&](int gpu, cudaStream_t st) {
        auto* hello = reinterpret_cast<uint64_t*>(flags + kHelloOffset);
        const int partner = gpu == a ? b : a;
        if (s.mode == "sync_all")
          nvshmem_barrier_kernel<true><<<1, 32, 0, st>>>(hello, gen, partner, c.total_iters(), c.cycles(gpu),
                                                         c.record(gpu), c.deadline(gpu));
        else
          nvshmem_barrier_kernel<false><<<1, 32, 0, st>>>(hello, gen, partner, c.total_iters(), c.cycles(gpu),
                                                          c.record(gpu), c.deadline(gpu));
      });
}

Row bulk(Context& c, Heap& h, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t pass = c.opt().bulk_pass_bytes;
  const SymBuf& src = c.buf("bulk_src", pass);
  char* dst = static_cast<char*>(h.buf("bulk_dst", pass));
  char* flags = static_cast<char*>(h.buf("flags", kFlagBytes));
  auto* counter = reinterpret_cast<uint64_t*>(flags + kCounterOffset);
  void* src_a = c.drives(a) ? src.local(a) : nullptr;
  const uint32_t m = static_cast<uint32_t>(s.message_bytes);
  const int grid = kBwBlocksPerSm * c.sm_count(a);
  BulkSignal sig{[&] {
                   for (int g : {a, b})
                     c.on(g, [&] {
                       PK_CUDA_CHECK(cudaMemset(counter, 0, sizeof(uint64_t)));
                       PK_CUDA_CHECK(cudaDeviceSynchronize());
                     });
                   c.comm().barrier();
                 },
                 [&]() -> unsigned long long {
                   unsigned long long v = 0;
                   PK_CUDA_CHECK(cudaMemcpy(&v, counter, sizeof v, cudaMemcpyDeviceToHost));
                   return v;
                 }};
  return measure_bulk(
      c, s, src_a, dst,
      [&](cudaStream_t st, uint64_t n) {
        const auto* from = static_cast<const char*>(src_a);
        const bool signal = s.mode == "signal";
        if (s.scope == "warp") {
          if (signal) nvshmem_bulk_kernel<Scope::warp, true><<<grid, kBwThreads, 0, st>>>(dst, from, m, n, counter, b);
          else nvshmem_bulk_kernel<Scope::warp, false><<<grid, kBwThreads, 0, st>>>(dst, from, m, n, counter, b);
        } else {
          if (signal) nvshmem_bulk_kernel<Scope::block, true><<<grid, kBwThreads, 0, st>>>(dst, from, m, n, counter, b);
          else nvshmem_bulk_kernel<Scope::block, false><<<grid, kBwThreads, 0, st>>>(dst, from, m, n, counter, b);
        }
      },
      s.mode == "signal" ? &sig : nullptr);
}

}  // namespace

Row run_nvshmem(Context& c, const Spec& s) {
  Heap& h = heap(c);
  if (s.op == "put") return put(c, h, s);
  if (s.op == "get") return get(c, h, s);
  if (s.op == "signal" || s.op == "put_signal" || s.op == kOpLonelyWait) return pingpong(c, h, s);
  if (s.op == "store" || s.op == "quiet" || s.op == "fence") return completion(c, h, s);
  if (s.op == "barrier") return barrier(c, h, s);
  if (s.op == "bulk_put") return bulk(c, h, s);
  throw std::logic_error("nvshmem style has no operation " + s.op);
}

ForeignChain nvshmem_chain(Context& c, uint64_t bytes, int reader, int owner) {
  Heap& h = heap(c);
  auto* sym = static_cast<uint64_t*>(h.buf(chain_name(c, bytes), bytes));
  ForeignChain ch;
  if (c.drives(owner)) ch.on_owner = sym;
  c.on(reader, [&] {
    ch.reader_view = static_cast<const uint64_t*>(h.rt->peer_address(sym, owner));
    if (!ch.reader_view) throw std::runtime_error("nvshmem_ptr gave no address for PE " + std::to_string(owner));
  });
  return ch;
}

void release_nvshmem() { g_heap.reset(); }

std::string nvshmem_version_text() { return nvshmem_runtime_version(); }

}  // namespace pk::prim
