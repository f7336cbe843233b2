// See measure.h.
#include "microbench/primitives/measure.h"

#include "kernels/primitives/chain.cuh"
#include "kernels/primitives/pingpong.cuh"
#include "microbench/harness/cuda_check.h"

namespace pk::prim {
namespace {
constexpr uint64_t kBulkSeed = 0x5EED0002;
constexpr uint64_t kBulkSeedLast = 0x5EED0003;  // the last (checked) sample's source
}

uint64_t put_buffer_bytes(const Context& c) {
  const Options& o = c.opt();
  const uint64_t latency = uint64_t(o.latency_samples) * o.calls_per_sample * group_threads("block") * 16;
  const uint64_t bw = uint64_t(kBwBlocksPerSm) * c.sm_count(c.a()) * kBwThreads * kBwBytesPerThread;
  return std::max(latency, bw);
}

Row measure_put(Context& c, const Spec& s, void* src_on_a, void* dst_on_b, const PutLaunch& launch) {
  const int a = c.a(), b = c.b();
  const bool timed = s.metric == kMetricLatency;
  const int G = group_threads(s.scope);
  const int elem = s.elem_bytes;
  PutShape shape{};
  int grid = 1, block = G;
  if (timed) {
    shape = {static_cast<uint32_t>(G), static_cast<uint32_t>(c.opt().calls_per_sample),
             static_cast<uint32_t>(c.opt().latency_samples)};
  } else {
    grid = kBwBlocksPerSm * c.sm_count(a);
    block = kBwThreads;
    shape = {static_cast<uint32_t>(G), static_cast<uint32_t>(kBwBytesPerThread / elem), 1};
  }
  const uint64_t bytes = uint64_t(shape.samples) * shape.calls * grid * block * elem;
  if (bytes > put_buffer_bytes(c)) throw std::logic_error("put pass larger than its buffers");
  c.fill(a, src_on_a, bytes, kPutSeed);
  c.poison(b, dst_on_b, bytes);
  Row r;
  if (timed) {
    c.launch_together({a}, [&](int) { launch(c.stream(a), grid, block, shape, true); });
    std::vector<double> ns = c.collect_ns(a, static_cast<int>(shape.samples), 0);
    for (double& x : ns) x /= shape.calls;
    r = latency_row(s, ns, false, kClockInKernel);
    r["ops_per_sample"] = std::to_string(shape.calls);
  } else {
    int ops = 0;
    // Register-valued puts make their values from kPutSeed: the input stays, the output is
    // re-poisoned before the last sample, the one checked.
    const double gbps = c.bandwidth(
        a, bytes, [&](cudaStream_t st) { launch(st, grid, block, shape, false); }, &ops,
        [&] { c.poison(b, dst_on_b, bytes); });
    r["value"] = fmt_num(gbps);
    r["gbps"] = fmt_num(gbps);
    r["samples"] = std::to_string(c.opt().bw_samples);
    r["ops_per_sample"] = std::to_string(ops);
    r["clock_source"] = "cuda events around back-to-back passes (FlowTimer)";
  }
  c.check(b, dst_on_b, bytes, kPutSeed, "put destination");
  r["verified"] = "yes";
  return r;
}

uint64_t chain_bytes(const Context& c, const Spec& s) {
  return s.placement.find("l2_resident") != std::string::npos ? c.opt().chain_small_bytes : c.opt().chain_large_bytes;
}

Row measure_chain(Context& c, const Spec& s, int reader, int owner, uint64_t* chain_on_owner, uint64_t bytes,
                  const ChainLaunch& launch) {
  const uint64_t slots = bytes / (kChainStrideWords * 8);
  if (slots & (slots - 1)) throw ArgError("chain size must be a power of two");
  const int hops = c.total_iters();
  if (static_cast<uint64_t>(hops) > slots)
    throw ArgError("--iters + --warmup (" + std::to_string(hops) + ") exceeds the chain's " + std::to_string(slots) +
                   " slots: a hop would revisit a line");
  const bool resident = s.placement.find("l2_resident") != std::string::npos;
  c.on(owner, [&] {
    // Zeroed first where the fill below reads every byte: the builder writes 8 B a slot, and a
    // read of the rest is a read of memory never written (compute-sanitizer's initcheck).
    if (resident) PK_CUDA_CHECK(cudaMemset(chain_on_owner, 0, bytes));
    pk::sync::build_chase_kernel<<<1024, 256>>>(chain_on_owner, slots, kChainStrideWords);
    PK_CUDA_CHECK_LAUNCH();
    if (resident) {
      l2_fill_kernel<<<1024, 256>>>(reinterpret_cast<const uint4*>(chain_on_owner), bytes / sizeof(uint4),
                                    reinterpret_cast<unsigned long long*>(c.mismatches(owner)));
      PK_CUDA_CHECK_LAUNCH();
    }
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  });
  c.launch_together({reader}, [&](int) { launch(c.stream(reader), hops); });
  Row r = latency_row(s, c.collect_ns(reader, hops, c.opt().warmup), false, kClockInKernel);
  const unsigned long long sink = c.collect_sink(reader), want = chain_after(slots, hops);
  if (sink != want)
    throw std::runtime_error("chain ended at word " + std::to_string(sink) + ", expected " + std::to_string(want));
  r["verified"] = "yes";
  return r;
}

const SymBuf& pingpong_payload(Context& c) { return c.buf("payload_src", uint64_t(c.total_iters()) * sizeof(uint4)); }

std::function<void()> pingpong_reset(Context& c, const SymBuf& payload, std::function<void(int gpu)> clear) {
  return [&c, &payload, clear = std::move(clear)] {
    for (int g : {c.a(), c.b()})
      c.on(g, [&] {
        clear(g);
        payload_fill_kernel<<<8, 256>>>(reinterpret_cast<uint4*>(payload.local(g)), c.total_iters(), g);
        PK_CUDA_CHECK_LAUNCH();
        PK_CUDA_CHECK(cudaDeviceSynchronize());
      });
    c.comm().barrier();
  };
}

Row measure_pingpong(Context& c, const Spec& s, const std::function<void()>& reset, const SideLaunch& launch) {
  const int a = c.a(), b = c.b();
  reset();
  if (s.op == kOpLonelyWait) {
    // Only a responder, on a: nobody ever signals it, so its wait must time out.
    c.launch_together({a}, [&](int gpu) { launch(gpu, c.stream(gpu), false); });
    throw std::runtime_error("a wait with no partner returned without timing out");
  }
  c.launch_together({b, a}, [&](int gpu) { launch(gpu, c.stream(gpu), gpu == a); });
  Row r = latency_row(s, c.collect_ns(a, c.total_iters(), c.opt().warmup), true, kClockInKernel);
  const unsigned bad = c.collect_mismatches(a) + c.collect_mismatches(b);
  if (s.elem_bytes) {
    r["data_mismatches"] = std::to_string(bad);
    // A protocol that orders data before the flag must never see stale data; one that does
    // not (relaxed) reports what it saw: zero proves nothing about it.
    if (bad && s.protocol_correct == "yes")
      throw std::runtime_error(std::to_string(bad) + " rounds read stale data after the signal");
    r["verified"] = bad ? "stale data seen" : "yes";
  } else {
    r["verified"] = "yes";
  }
  return r;
}

Row measure_barrier(Context& c, const Spec& s, const std::function<void()>& reset,
                    const std::function<void(int gpu, cudaStream_t)>& launch) {
  const int a = c.a(), b = c.b();
  reset();
  c.launch_together({b, a}, [&](int gpu) { launch(gpu, c.stream(gpu)); });
  Row r = latency_row(s, c.collect_ns(a, c.total_iters(), c.opt().warmup), false, kClockInKernel);
  r["verified"] = "yes";
  return r;
}

Row measure_single(Context& c, const Spec& s, const std::function<void(cudaStream_t)>& launch) {
  const int a = c.a();
  c.launch_together({a}, [&](int) { launch(c.stream(a)); });
  return latency_row(s, c.collect_ns(a, c.total_iters(), c.opt().warmup), false, kClockInKernel);
}

Row measure_bulk(Context& c, const Spec& s, void* src_on_a, void* dst_on_b,
                 const std::function<void(cudaStream_t, uint64_t n_msgs)>& enqueue, const BulkSignal* signal) {
  const int a = c.a(), b = c.b();
  const uint64_t pass = c.opt().bulk_pass_bytes, m = s.message_bytes;
  if (m % 16 || pass % m) throw ArgError("bulk message size must be a multiple of 16 B dividing the pass");
  const uint64_t n_msgs = pass / m;
  c.fill(a, src_on_a, pass, kBulkSeed);
  c.poison(b, dst_on_b, pass);
  if (signal) signal->reset();
  long long passes = 0;
  int ops = 0;
  const double gbps = c.bandwidth(
      a, pass,
      [&](cudaStream_t st) {
        enqueue(st, n_msgs);
        ++passes;
      },
      &ops,
      [&] {  // the last sample, the one checked, copies a new source into a re-poisoned destination
        c.fill(a, src_on_a, pass, kBulkSeedLast);
        c.poison(b, dst_on_b, pass);
      });
  c.check(b, dst_on_b, pass, kBulkSeedLast, "bulk put destination");
  Row r;
  if (signal) {
    passes = std::stoll(c.comm().broadcast_string(std::to_string(passes), c.group().owner_rank(a)));
    unsigned long long got = 0;
    c.on(b, [&] { got = signal->read_on_b(); });
    got = std::stoull(c.comm().broadcast_string(std::to_string(got), c.group().owner_rank(b)));
    const unsigned long long want = static_cast<unsigned long long>(passes) * n_msgs;
    if (got != want)
      throw std::runtime_error("signal counter " + std::to_string(got) + ", expected " + std::to_string(want));
  }
  r["value"] = fmt_num(gbps);
  r["gbps"] = fmt_num(gbps);
  r["samples"] = std::to_string(c.opt().bw_samples);
  r["ops_per_sample"] = std::to_string(ops);
  r["clock_source"] = "cuda events around back-to-back passes (FlowTimer)";
  r["verified"] = "yes";
  return r;
}

}  // namespace pk::prim
