// PK style: every address from a pk::SymBuf table held in registers (PeerTable by value),
// the project's PTX wrappers for every ordered access. Also the PK-side references the
// libraries are compared with: local HBM, nvbandwidth's pointer chase, TMA and register
// bulk copies.
#include "kernels/primitives/bulk_put.cuh"
#include "kernels/primitives/chain.cuh"
#include "kernels/primitives/completion.cuh"
#include "kernels/primitives/pingpong.cuh"
#include "kernels/transfer_register.cuh"
#include "kernels/transfer_tma.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/primitives/measure.h"

namespace pk::prim {
namespace {

constexpr uint64_t kFlagBytes = 4096;
constexpr uint64_t kPayloadOffset = 128;  // payload slot (16 B)
constexpr uint64_t kLLOffset = 160;       // LL payload (4 x 8-B data+flag words)
constexpr uint64_t kCounterOffset = 256;  // bulk-put signal counter
constexpr uint32_t kTmaChunk = 16384, kTmaWarps = 4, kTmaDepth = 2;

// Calls fn with a default-constructed ordering policy named by the spec.
template <class Fn>
void with_order(const std::string& name, Fn fn) {
  if (name == OrderRelaxed::kName) fn(OrderRelaxed{});
  else if (name == OrderReleaseAcquireSys::kName) fn(OrderReleaseAcquireSys{});
  else if (name == OrderFenceThenRelaxed::kName) fn(OrderFenceThenRelaxed{});
  else if (name == OrderAtomicRelease::kName) fn(OrderAtomicRelease{});
  else throw std::logic_error("no PK signal ordering named " + name);
}

Row put(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = put_buffer_bytes(c);
  const SymBuf& src = c.buf("put_src", bytes);
  const SymBuf& dst = c.buf("put_dst", bytes);
  void* src_a = c.drives(a) ? src.local(a) : nullptr;
  void* dst_b = c.drives(b) ? dst.local(b) : nullptr;
  return measure_put(c, s, src_a, dst_b, [&](cudaStream_t st, int grid, int block, const PutShape& sh, bool timed) {
    uint32_t* cyc = timed ? c.cycles(a) : nullptr;
    TimingRecord* rec = timed ? c.record(a) : nullptr;
    const auto* s4 = static_cast<const uint32_t*>(src_a);
    if (s.mode == "reg")
      element_put_kernel<<<grid, block, 0, st>>>(PkPut<uint32_t, true>{dst.table<uint32_t>(a), b, s4, kPutSeed}, sh,
                                                 cyc, rec);
    else if (s.elem_bytes == 4)
      element_put_kernel<<<grid, block, 0, st>>>(PkPut<uint32_t>{dst.table<uint32_t>(a), b, s4, kPutSeed}, sh, cyc, rec);
    else
      element_put_kernel<<<grid, block, 0, st>>>(
          PkPut<uint4>{dst.table<uint4>(a), b, static_cast<const uint4*>(src_a), kPutSeed}, sh, cyc, rec);
  });
}

Row get(Context& c, const Spec& s) {
  const bool local = s.placement.rfind("local", 0) == 0;
  const int reader = c.a(), owner = local ? c.a() : c.b();
  const uint64_t bytes = chain_bytes(c, s);
  ForeignChain ch;
  if (s.memory == "symbuf") {
    const SymBuf& buf = c.buf(bytes == c.opt().chain_small_bytes ? "chain_small" : "chain_large", bytes);
    if (c.drives(owner)) ch.on_owner = reinterpret_cast<uint64_t*>(buf.local(owner));
    if (c.drives(reader)) ch.reader_view = reinterpret_cast<const uint64_t*>(buf.at(reader, owner));
  } else if (s.memory == "nvshmem_heap") {
    ch = nvshmem_chain(c, bytes, reader, owner);
  } else {
    ch = nccl_chain(c, bytes, reader, owner);
  }
  return measure_chain(c, s, reader, owner, ch.on_owner, bytes, [&](cudaStream_t st, int hops) {
    if (s.ordering == kOrderRelaxed)
      chain_kernel<<<1, 32, 0, st>>>(PkLoadRelaxed{ch.reader_view}, hops, c.cycles(reader), c.record(reader));
    else
      chain_kernel<<<1, 32, 0, st>>>(PkLoadWeak{ch.reader_view}, hops, c.cycles(reader), c.record(reader));
  });
}

// nvbandwidth's device_to_device_latency_sm, run the way it runs it (see chain.cuh).
Row nvbandwidth_chase(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t n = c.opt().nvbw_bytes / sizeof(NvbwNode);
  const SymBuf& buf = c.buf("nvbw", c.opt().nvbw_bytes);
  double ns = 0;
  int launches = 0;
  c.on(a, [&] {
    auto* nodes = reinterpret_cast<NvbwNode*>(buf.at(a, b));
    nvbw_build_kernel<<<256, 256>>>(nodes, n);
    PK_CUDA_CHECK_LAUNCH();
    PK_CUDA_CHECK(cudaDeviceSynchronize());
    const unsigned sms = static_cast<unsigned>(c.sm_count(a));
    const unsigned per_launch = static_cast<unsigned>(c.opt().nvbw_accesses / sms);
    auto* sink = reinterpret_cast<unsigned long long*>(c.mismatches(a));
    EventPair ev;
    double sum_s = 0;
    for (unsigned t = 0; t < sms; ++t) {
      PK_CUDA_CHECK(cudaEventRecord(ev.start, c.stream(a)));
      nvbw_chase_kernel<<<sms, 1, 0, c.stream(a)>>>(nodes, per_launch, t, sink);
      PK_CUDA_CHECK_LAUNCH();
      PK_CUDA_CHECK(cudaEventRecord(ev.stop, c.stream(a)));
      sum_s += ev.elapsed_ms() / 1000.0;
    }
    unsigned long long end = 0;
    PK_CUDA_CHECK(cudaMemcpy(&end, sink, sizeof end, cudaMemcpyDeviceToHost));
    const auto want = reinterpret_cast<unsigned long long>(&nodes[(uint64_t(per_launch) * 16) % n]);
    if (end != want) throw std::runtime_error("nvbandwidth chase ended at the wrong node");
    ns = sum_s * 1e9 / double(c.opt().nvbw_accesses);  // nvbandwidth divides by the count asked for
    launches = static_cast<int>(sms);
  });
  ns = c.comm().broadcast_doubles({ns}, c.group().owner_rank(a)).at(0);
  Row r;
  r["value"] = fmt_num(ns, 5);
  r["median_ns"] = fmt_num(ns, 5);
  r["samples"] = std::to_string(static_cast<int>(c.comm().max(launches)));
  r["ops_per_sample"] = std::to_string(c.opt().nvbw_accesses / std::max(1, c.sm_count(a)));
  r["clock_source"] = "cuda events around each launch, summed, / 1M accesses (nvbandwidth's method)";
  r["verified"] = "yes";
  (void)s;
  return r;
}

Row pingpong(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b(), total = c.total_iters();
  const SymBuf& flags = c.buf("flags", kFlagBytes);
  const SymBuf& psrc = c.buf("payload_src", uint64_t(total) * sizeof(uint4));
  auto reset = [&] {
    c.zero(flags, kFlagBytes);
    for (int g : {a, b})
      c.on(g, [&] {
        payload_fill_kernel<<<8, 256>>>(reinterpret_cast<uint4*>(psrc.local(g)), total, g);
        PK_CUDA_CHECK_LAUNCH();
        PK_CUDA_CHECK(cudaDeviceSynchronize());
      });
  };
  Row r;
  with_order(s.ordering.empty() ? OrderReleaseAcquireSys::kName : s.ordering, [&](auto order) {
    using Order = decltype(order);
    auto launch = [&](int gpu, cudaStream_t st, bool init) {
      const int partner = init ? b : a;
      char* mine = flags.local(gpu);
      char* theirs = flags.at(gpu, partner);
      auto go = [&](auto side) {
        pingpong_kernel<<<1, 32, 0, st>>>(side, init, total, c.cycles(gpu), c.record(gpu), c.mismatches(gpu),
                                          c.deadline(gpu));
      };
      const auto* src = reinterpret_cast<const uint4*>(psrc.local(gpu));
      auto* pdata = reinterpret_cast<uint4*>(theirs + kPayloadOffset);
      const auto* mdata = reinterpret_cast<const uint4*>(mine + kPayloadOffset);
      if (s.mode == "ll")
        go(PkLLSide{reinterpret_cast<unsigned long long*>(theirs + kLLOffset),
                    reinterpret_cast<const unsigned long long*>(mine + kLLOffset), src, partner});
      else if (s.elem_bytes)
        go(PkSide<Order, true>{reinterpret_cast<int*>(theirs), reinterpret_cast<const int*>(mine), pdata, mdata, src,
                               partner});
      else
        go(PkSide<Order, false>{reinterpret_cast<int*>(theirs), reinterpret_cast<const int*>(mine), pdata, mdata, src,
                                partner});
    };
    r = measure_pingpong(c, s, reset, launch);
  });
  return r;
}

Row completion(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t bytes = put_buffer_bytes(c);
  const SymBuf& src = c.buf("put_src", bytes);
  const SymBuf& dst = c.buf("put_dst", bytes);
  return measure_single(c, s, [&](cudaStream_t st) {
    auto* peer = reinterpret_cast<uint32_t*>(dst.at(a, b));
    const auto* from = reinterpret_cast<const uint32_t*>(src.local(a));
    const int n = c.total_iters();
    if (s.op == "quiet")
      completion_kernel<<<1, 32, 0, st>>>(PkComplete<PkCompletion::fence_sc_sys>{peer, from}, n, c.cycles(a), c.record(a));
    else if (s.op == "fence")
      completion_kernel<<<1, 32, 0, st>>>(PkComplete<PkCompletion::fence_acq_rel_sys>{peer, from}, n, c.cycles(a),
                                          c.record(a));
    else
      completion_kernel<<<1, 32, 0, st>>>(PkComplete<PkCompletion::none>{peer, from}, n, c.cycles(a), c.record(a));
  });
}

Row barrier(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b();
  const SymBuf& counters = c.buf("barrier", kFlagBytes);
  auto launch = [&](int gpu, cudaStream_t st) {
    // The inboxes of the two participants only (the group may hold more GPUs).
    PeerTable<int> t{};
    t.at[0] = reinterpret_cast<int*>(counters.at(gpu, a));
    t.at[1] = reinterpret_cast<int*>(counters.at(gpu, b));
    t.self = gpu == a ? 0 : 1;
    t.size = 2;
    if (s.ordering == kOrderReleaseAcquire)
      barrier_kernel<<<1, 32, 0, st>>>(PkBarrier<OrderReleaseAcquireSys>{t}, c.total_iters(), c.cycles(gpu),
                                       c.record(gpu), c.deadline(gpu));
    else
      barrier_kernel<<<1, 32, 0, st>>>(PkBarrier<OrderRelaxed>{t}, c.total_iters(), c.cycles(gpu), c.record(gpu),
                                       c.deadline(gpu));
  };
  return measure_barrier(c, s, [&] { c.zero(counters, kFlagBytes); }, launch);
}

Row bulk(Context& c, const Spec& s) {
  const int a = c.a(), b = c.b();
  const uint64_t pass = c.opt().bulk_pass_bytes;
  const SymBuf& src = c.buf("bulk_src", pass);
  const SymBuf& dst = c.buf("bulk_dst", pass);
  const SymBuf& flags = c.buf("flags", kFlagBytes);
  void* src_a = c.drives(a) ? src.local(a) : nullptr;
  void* dst_b = c.drives(b) ? dst.local(b) : nullptr;
  const uint32_t m = static_cast<uint32_t>(s.message_bytes);
  const int grid = kBwBlocksPerSm * c.sm_count(a);
  BulkSignal sig{[&] { c.zero(flags, kFlagBytes); },
                 [&]() -> unsigned long long {
                   int v = 0;
                   PK_CUDA_CHECK(cudaMemcpy(&v, flags.local(b) + kCounterOffset, sizeof v, cudaMemcpyDeviceToHost));
                   return static_cast<unsigned long long>(v);
                 }};
  if (s.mechanism == "tma") {
    const uint32_t chunk = std::min<uint32_t>(m, kTmaChunk);
    const uint64_t smem = transfer::tma_smem_bytes(kTmaWarps, kTmaDepth, (chunk + 127u) / 128u * 128u);
    c.on(a, [&] {
      PK_CUDA_CHECK(cudaFuncSetAttribute(transfer::tma_copy_kernel<transfer::BulkAddressing>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    });
    Row r = measure_bulk(
        c, s, src_a, dst_b,
        [&](cudaStream_t st, uint64_t) {
          transfer::BulkAddressing addr{static_cast<const char*>(src_a), dst.at(a, b), chunk};
          transfer::TmaPipelineParams p{pass / chunk, chunk, (chunk + 127u) / 128u * 128u, kTmaDepth, c.deadline(a)};
          transfer::tma_copy_kernel<transfer::BulkAddressing>
              <<<c.sm_count(a), kTmaWarps * 32, smem, st>>>(addr, p);
        },
        nullptr);
    r["call"] = s.call + "; " + std::to_string(chunk) + "-B stages, " + std::to_string(kTmaWarps) + " warps x " +
                std::to_string(kTmaDepth) + " deep per SM";
    return r;
  }
  if (s.scope == "block" && s.mode == "nosignal")
    return measure_bulk(
        c, s, src_a, dst_b,
        [&](cudaStream_t st, uint64_t n) {
          transfer::register_copy_kernel<transfer::RegisterCopyConfig<16, 4>>
              <<<grid, kBwThreads, 0, st>>>(static_cast<const char*>(src_a), dst.at(a, b), n, m);
        },
        nullptr);
  auto* counter = reinterpret_cast<int*>(c.drives(a) ? flags.at(a, b) + kCounterOffset : nullptr);
  return measure_bulk(
      c, s, src_a, dst_b,
      [&](cudaStream_t st, uint64_t n) {
        const auto t = dst.table<char>(a);
        const auto* from = static_cast<const char*>(src_a);
        if (s.scope == "warp" && s.mode == "nosignal")
          pk_bulk_kernel<Scope::warp, false><<<grid, kBwThreads, 0, st>>>(t, b, from, m, n, counter);
        else if (s.scope == "warp")
          pk_bulk_kernel<Scope::warp, true><<<grid, kBwThreads, 0, st>>>(t, b, from, m, n, counter);
        else
          pk_bulk_kernel<Scope::block, true><<<grid, kBwThreads, 0, st>>>(t, b, from, m, n, counter);
      },
      s.mode == "signal" ? &sig : nullptr);
}

}  // namespace

Row run_pk(Context& c, const Spec& s) {
  if (s.op == "put") return put(c, s);
  if (s.op == "get") return s.placement == "nvbandwidth" ? nvbandwidth_chase(c, s) : get(c, s);
  if (s.op == "signal" || s.op == "put_signal" || s.op == kOpLonelyWait) return pingpong(c, s);
  if (s.op == "store" || s.op == "quiet" || s.op == "fence") return completion(c, s);
  if (s.op == "barrier") return barrier(c, s);
  if (s.op == "bulk_put") return bulk(c, s);
  throw std::logic_error("pk style has no operation " + s.op);
}

}  // namespace pk::prim
