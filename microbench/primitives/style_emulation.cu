// The NVSHMEM-shaped emulation of kernels/sync_library_style.cuh (our own code written the
// way a library's device API is shaped: a global-memory table lookup per access, volatile
// accesses, fenced system atomics, block syncs). Labelled `emulation`: it is not NVSHMEM.
// It runs on the PK buffers, so its rows and the PK rows share memory.
#include "kernels/primitives/chain.cuh"
#include "kernels/sync_library_style.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/primitives/measure.h"

namespace pk::prim {
namespace {

// The library-style table of `gpu`: entry pe = the address `gpu` uses for pe's copy of b.
const unsigned long long* table_on(Context& c, int gpu, const SymBuf& b) {
  const SymBuf& t = c.buf("emulation_table", 4096);
  unsigned long long host[kMaxGpus] = {};
  for (int pe = 0; pe < c.group().size() && pe < kMaxGpus; ++pe)
    host[pe] = reinterpret_cast<unsigned long long>(b.row(gpu)[pe]);
  auto* dev = reinterpret_cast<unsigned long long*>(t.local(gpu));
  PK_CUDA_CHECK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
  return dev;
}

}  // namespace

Row run_emulation(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b();
  if (s.op == "put") {
    const uint64_t bytes = put_buffer_bytes(c);
    const SymBuf& src = c.buf("put_src", bytes);
    const SymBuf& dst = c.buf("put_dst", bytes);
    c.buf("emulation_table", 4096);
    void* src_a = c.drives(a) ? src.local(a) : nullptr;
    void* dst_b = c.drives(b) ? dst.local(b) : nullptr;
    const unsigned long long* table = nullptr;
    c.on(a, [&] { table = table_on(c, a, dst); });
    return measure_put(c, s, src_a, dst_b, [&](cudaStream_t st, int grid, int block, const PutShape& sh, bool) {
      const uint64_t n = uint64_t(sh.calls) * sh.samples * grid * block;
      sync::library_put_kernel<<<grid, block, 0, st>>>(table, b, static_cast<const int*>(src_a), n);
    });
  }
  if (s.op == "get") {
    const uint64_t bytes = chain_bytes(c, s);
    const SymBuf& buf = c.buf(bytes == c.opt().chain_small_bytes ? "chain_small" : "chain_large", bytes);
    c.buf("emulation_table", 4096);
    const unsigned long long* table = nullptr;
    c.on(a, [&] { table = table_on(c, a, buf); });
    uint64_t* on_owner = c.drives(b) ? reinterpret_cast<uint64_t*>(buf.local(b)) : nullptr;
    return measure_chain(c, s, a, b, on_owner, bytes, [&](cudaStream_t st, int hops) {
      sync::chase_kernel<true><<<1, 32, 0, st>>>(nullptr, table, b, 0, hops, c.cycles(a), c.record(a));
    });
  }
  if (s.op == "signal" || s.op == kOpLonelyWait) {
    const SymBuf& flags = c.buf("flags", 4096);
    c.buf("emulation_table", 4096);
    std::map<int, const unsigned long long*> tables;
    for (int g : {a, b}) c.on(g, [&] { tables[g] = table_on(c, g, flags); });
    return measure_pingpong(
        c, s, [&] { c.zero(flags, 4096); },
        [&](int gpu, cudaStream_t st, bool init) {
          sync::library_pingpong_kernel<<<1, 128, 0, st>>>(tables.at(gpu), init ? b : a, 0,
                                                           reinterpret_cast<const int*>(flags.local(gpu)), init,
                                                           c.total_iters(), c.cycles(gpu), c.record(gpu), c.deadline(gpu));
        });
  }
  throw std::logic_error("the emulation has no operation " + s.op);
}

}  // namespace pk::prim
