#include "microbench/collectives/coll_harness.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/collectives/coll_order.h"
#include "microbench/collectives/nccltests_method.h"

namespace pk::coll {

// ---------------------------------------------------------------- context

Context::Context(PeerGroup& g, const StudyConfig& c, uint64_t in_bytes, uint64_t out_bytes, uint64_t scratch_bytes)
    : group(g), cfg(c), status(g), gate(g), streams(g) {
  // Slack past the largest point: the LL kernel reads whole 8-B payloads.
  in = g.alloc(std::max<uint64_t>(in_bytes, 4096) + 256, "collective input");
  out = g.alloc(std::max<uint64_t>(out_bytes, 4096) + 256, "collective output");
  scratch = g.alloc(std::max<uint64_t>(scratch_bytes, 4096) + 256, "collective scratch");
  sync = g.alloc(kSyncBytes, "collective signals");
  int mine = INT_MAX;
  collectively(g.comm(), [&] {
    for (int gpu : g.local_gpus()) {
      g.set_device(gpu);
      // The rank's SM budget (a virtual rank's share), never the device's: spin-waiting grids
      // must fit in the SMs the rank has.
      mine = std::min(mine, g.sm_budget(gpu));
      status.on(gpu);  // allocated now, never during a graph capture
      PK_CUDA_CHECK(cudaMemset(sync.local(gpu), 0, kSyncBytes));
      // Every byte written once: the LL kernel reads its input's slack past the count, and a
      // protocol polls its landing slots before a peer writes them (initcheck's reads of memory
      // never written; a stale flag from an earlier allocation must not pass as this launch's).
      for (const SymBuf* b : {&in, &out, &scratch}) PK_CUDA_CHECK(cudaMemset(b->local(gpu), 0, b->bytes()));
      PK_CUDA_CHECK(cudaMalloc(&check_results[gpu], sizeof(CheckResult)));
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
  sms = static_cast<int>(g.comm().min(mine));
}

Context::~Context() {
  for (auto& [gpu, r] : check_results) {
    group.set_device(gpu);
    cudaFree(r);
  }
}

SyncTable Context::sync_table(int gpu) {
  SyncTable t{};
  t.flags = sync.table<int>(gpu);
  t.epochs = reinterpret_cast<int*>(sync.local(gpu) + kEpochOffset);
  t.deadline = status.deadline(gpu, cfg.timing.timeout_ms);
  return t;
}

// ---------------------------------------------------------------- our kernels

std::string PkImpl::config() const {
  std::string c = std::to_string(blocks_) + " blocks x " + std::to_string(threads_) + " threads";
  if (smem_) c += " smem " + std::to_string(smem_);
  if (rounds_ > 1) c += " rounds " + std::to_string(rounds_);
  if (pdl_) c += " pdl";
  return c;
}

std::string PkImpl::knob_refusal(const LaunchKnobs& k) const {
  const auto [lo, hi] = thread_range();
  if (k.threads && (k.threads < lo || k.threads > hi))
    return "threads=" + std::to_string(k.threads) + " outside what its kernel launches with (" +
           (lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi)) + ")";
  if (k.sms > kMaxBlocks)
    return "sms=" + std::to_string(k.sms) + " above the signal table's " + std::to_string(kMaxBlocks) + " blocks";
  return "";
}

std::string PkImpl::tag() const {
  if (knobs_.is_auto()) return "";
  std::string t = "[" + knobs_.text() + "]";
  std::replace(t.begin(), t.end(), ' ', ',');
  return t;
}

void PkImpl::describe(Row& row) const {
  row["sms"] = std::to_string(blocks_);
  row["threads"] = std::to_string(threads_);
  row["knobs"] = knobs_.text();
}

void PkImpl::set_grid(Context& ctx, const void* kernel, int auto_threads, size_t smem,
                      const std::function<int(int most)>& auto_blocks) {
  threads_ = knobs_.threads ? knobs_.threads : auto_threads;
  ctx.group.set_device(ctx.group.local_gpus()[0]);
  const int most = std::min(ctx.sms, resident_blocks(kernel, threads_, smem, ctx.sms));
  if (knobs_.sms > most)
    throw SkipPoint("sms=" + std::to_string(knobs_.sms) + ": at most " + std::to_string(most) + " blocks of " +
                    std::to_string(threads_) + " threads are resident at once on this rank's " +
                    std::to_string(ctx.sms) + " SMs (spin-waiting blocks must all be)");
  blocks_ = knobs_.sms ? knobs_.sms : auto_blocks(most);
}

void PkImpl::build_params(Context& ctx, const Problem& p, uint64_t count, uint64_t slot_elems, int handshake,
                          int rounds) {
  ctx_ = &ctx;
  p_ = p;
  rounds_ = rounds;
  pb_.clear();
  pf_.clear();
  for (int gpu : ctx.group.local_gpus()) {
    if (p.dtype == DType::bf16) {
      auto q = ctx.params<__nv_bfloat16>(gpu, count);
      q.slot_elems = slot_elems;
      q.handshake = handshake;
      q.rounds = rounds;
      pb_[gpu] = q;
    } else {
      auto q = ctx.params<float>(gpu, count);
      q.slot_elems = slot_elems;
      q.handshake = handshake;
      q.rounds = rounds;
      pf_[gpu] = q;
    }
  }
}

void PkImpl::launch_grid(const void* kernel, void** args, cudaStream_t s) const {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks_);
  cfg.blockDim = dim3(threads_);
  cfg.dynamicSmemBytes = smem_;
  cfg.stream = s;
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  if (pdl_) {
    cfg.attrs = &pdl;
    cfg.numAttrs = 1;
  }
  PK_CUDA_CHECK(cudaLaunchKernelExC(&cfg, kernel, args));
}

// ---------------------------------------------------------------- launch helpers

int resident_blocks(const void* kernel, int threads, size_t smem, int sms) {
  int per_sm = 0;
  PK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  if (per_sm < 1) throw std::runtime_error("a collective kernel does not fit on one SM");
  return std::min(kMaxBlocks, per_sm * sms);
}

int grid_for(uint64_t bytes, uint64_t bytes_per_block, int max_blocks) {
  const uint64_t want = (bytes + bytes_per_block - 1) / bytes_per_block;
  return static_cast<int>(std::clamp<uint64_t>(want, 1, static_cast<uint64_t>(std::max(1, max_blocks))));
}

void fill_input(void* dst, uint64_t elems, DType t, uint64_t seed, int rank, cudaStream_t s) {
  const int blocks = static_cast<int>(std::clamp<uint64_t>((elems + 255) / 256, 1, 4096));
  if (t == DType::bf16)
    fill_input_kernel<__nv_bfloat16><<<blocks, 256, 0, s>>>(static_cast<__nv_bfloat16*>(dst), elems, seed, rank, kBf16);
  else
    fill_input_kernel<float><<<blocks, 256, 0, s>>>(static_cast<float*>(dst), elems, seed, rank, kF32);
  PK_CUDA_CHECK_LAUNCH();
}

void poison(void* dst, uint64_t bytes, cudaStream_t s) {
  PK_CUDA_CHECK(cudaMemsetAsync(dst, 0xFF, bytes, s));  // all-ones: NaN in bf16 and fp32
}

void launch_check(const void* out, const RefSpec& spec, DType t, CheckResult* res, cudaStream_t s) {
  PK_CUDA_CHECK(cudaMemsetAsync(res, 0, sizeof(CheckResult), s));
  PK_CUDA_CHECK(cudaMemsetAsync(&res->first_bad, 0xFF, sizeof res->first_bad, s));  // ~0: none yet
  const int blocks = static_cast<int>(std::clamp<uint64_t>((spec.out_elems + 255) / 256, 1, 2048));
  if (t == DType::bf16)
    check_output_kernel<__nv_bfloat16><<<blocks, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(out), spec, res);
  else
    check_output_kernel<float><<<blocks, 256, 0, s>>>(static_cast<const float*>(out), spec, res);
  PK_CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------- points and rows

std::string PointSpec::name() const {
  return problem.coll + "/" + impl->name() + impl->tag() + "/" + dtype_name(problem.dtype) + "/" + std::to_string(problem.bytes) +
         "/" + launch_mode_name(mode);
}

namespace {

double bits_to_double(unsigned long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

std::string nccl_env() {
  auto on = [](const char* v) {
    const char* e = std::getenv(v);
    return e && std::string(e) == "1";
  };
  std::string env = "default";
  if (on("NCCL_P2P_DISABLE") && on("NCCL_SHM_DISABLE")) env = "net (simulated inter-node: NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)";
  else if (on("NCCL_P2P_DISABLE")) env = "NCCL_P2P_DISABLE=1";
  // The user's own forcing applies to every communicator this run did not force itself.
  for (const char* v : {"NCCL_PROTO", "NCCL_ALGO"})
    if (const char* e = std::getenv(v)) env += std::string(" ") + v + "=" + e;
  return env;
}

// Destroys captured graphs when the point ends, however it ends; the time it takes is the
// point's `capture` part.
struct Graphs {
  PeerGroup& g;
  std::map<int, cudaGraphExec_t> exec;
  std::map<int, cudaGraph_t> graph;
  ~Graphs() {
    if (exec.empty() && graph.empty()) return;
    point_cost::Phase cost("capture");
    for (auto& [gpu, e] : exec) {
      g.set_device(gpu);
      cudaGraphExecDestroy(e);
    }
    for (auto& [gpu, gr] : graph) {
      g.set_device(gpu);
      cudaGraphDestroy(gr);
    }
  }
};

}  // namespace

int ops_per_sample(uint64_t bytes, int most) {
  const uint64_t budget = 256ull << 20;
  return static_cast<int>(std::clamp<uint64_t>(budget / std::max<uint64_t>(bytes, 1), 1, std::max(1, most)));
}

void Runner::run(benchmark::State& state, const PointSpec& ps) {
  const Problem& p = ps.problem;
  Row row{{"study", "collectives"},
          {"collective", p.coll},
          {"impl", ps.impl->name()},
          {"family", ps.impl->family()},
          {"dtype", dtype_name(p.dtype)},
          {"bytes", std::to_string(p.bytes)},
          {"count", std::to_string(p.count)},
          {"in_elems_per_rank", std::to_string(p.in_elems)},
          {"out_elems_per_rank", std::to_string(p.out_elems)},
          {"gpus", std::to_string(p.n)},
          {"processes", std::to_string(ctx_.group.processes())},
          {"launch_mode", launch_mode_name(ps.mode)},
          {"busbw_factor", fmt_num(p.factor())},
          {"nccl_config", ps.impl->nccl_config()},
          {"nccl_env", ps.impl->family().rfind("nccl", 0) == 0 ? nccl_env() : ""}};
  run_timed_point(state, results_, ps.name(), std::move(row), "time_us_median", ctx_.cfg.timing.gap_ms,
                  [&](Row& r) { measure(ps, r); });
}

namespace {

// One point's run on this process's GPUs, in the steps Runner::measure takes. Graph capture
// and the nccl-tests method keep errors (err, skip) rather than throwing until every stream
// has left capture mode.
class PointRun {
 public:
  PointRun(Context& ctx, const PointSpec& ps)
      : ctx_(ctx), comm_(ctx.group.comm()), p_(ps.problem), impl_(*ps.impl), gpus_(ctx.group.local_gpus()),
        graph_(ps.mode == LaunchMode::graph) {}

  // Inputs of `seed` and poisoned outputs on every local GPU (and, fresh_signals, zeroed
  // epochs and flags), finished before it returns.
  // Queued on every GPU before any is waited for: the GPUs (virtual ranks: their own SMs) fill
  // at once.
  void fill(uint64_t seed, bool fresh_signals) {
    for (int gpu : gpus_) {
      ctx_.group.set_device(gpu);
      cudaStream_t s = ctx_.stream(gpu);
      if (fresh_signals) PK_CUDA_CHECK(cudaMemsetAsync(ctx_.sync.local(gpu), 0, kSyncBytes, s));
      fill_input(impl_.input(gpu), p_.in_elems, p_.dtype, seed, gpu, s);
      poison(impl_.output(gpu), p_.out_elems * p_.elem_bytes(), s);
    }
    for (int gpu : gpus_) {
      ctx_.group.set_device(gpu);
      PK_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream(gpu)));
    }
  }
  void enqueue_all() {
    impl_.group_begin();
    const bool set = impl_.needs_current_device();
    for (int gpu : gpus_) {
      if (set) ctx_.group.set_device(gpu);
      impl_.enqueue(gpu, ctx_.stream(gpu));
    }
    impl_.group_end();
  }
  void sync_all() {
    for (int gpu : gpus_) {
      ctx_.group.set_device(gpu);
      PK_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream(gpu)));
    }
    ctx_.status.check(gpus_);
  }

  static void guarded(std::string& err, bool& skip, const std::function<void()>& fn) {
    if (!err.empty()) return;
    try {
      fn();
    } catch (const SkipPoint& e) {
      err = e.what();
      skip = true;
    } catch (const std::exception& e) {
      err = e.what();
    }
  }
  void begin_capture(std::string& err) {
    for (int gpu : gpus_) {
      ctx_.group.set_device(gpu);
      const cudaError_t begin = cudaStreamBeginCapture(ctx_.stream(gpu), cudaStreamCaptureModeThreadLocal);
      if (err.empty() && begin != cudaSuccess) err = std::string("graph capture: ") + cudaGetErrorString(begin);
    }
  }
  void end_capture(Graphs& into, std::string& err) {
    for (int gpu : gpus_) {
      ctx_.group.set_device(gpu);
      cudaGraph_t g = nullptr;
      const cudaError_t end = cudaStreamEndCapture(ctx_.stream(gpu), &g);
      if (g) into.graph[gpu] = g;
      if (err.empty() && end != cudaSuccess) err = std::string("graph capture: ") + cudaGetErrorString(end);
    }
    for (int gpu : gpus_) {
      if (!err.empty()) break;
      ctx_.group.set_device(gpu);
      cudaGraphExec_t e = nullptr;
      const cudaError_t inst = cudaGraphInstantiate(&e, into.graph[gpu], 0);
      if (inst != cudaSuccess) err = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(inst);
      else into.exec[gpu] = e;
    }
  }
  void launch(Graphs& from) {
    for (int gpu : gpus_) {
      ctx_.group.set_device(gpu);
      PK_CUDA_CHECK(cudaGraphLaunch(from.exec.at(gpu), ctx_.stream(gpu)));
    }
  }
  // Graph mode: the timed graph of `count` collectives (a skip or an error thrown on every rank).
  void capture_timed(Graphs& into, int count) {
    collectively(comm_, [&] {
      std::string err;
      bool skip = false;
      begin_capture(err);
      guarded(err, skip, [&] {
        for (int i = 0; i < count; ++i) enqueue_all();
      });
      end_capture(into, err);
      if (!err.empty() && skip) throw SkipPoint(err);
      if (!err.empty()) throw std::runtime_error(err);
    });
  }

  // The device-time view: `samples` gated samples of C collectives (eager: C launches per
  // GPU; graph: one launch of `timed`), microseconds per collective.
  std::vector<double> time_samples(Graphs& timed, int C) {
    std::vector<Flow> flows;
    for (size_t i = 0; i < gpus_.size(); ++i) {
      const int gpu = gpus_[i];
      Flow f;
      f.index = gpu;
      f.gpu = gpu;
      f.stream = ctx_.stream(gpu);
      f.enqueues_per_op = graph_ ? 1 : impl_.enqueues_per_op();
      if (graph_) {
        cudaGraphExec_t e = timed.exec[gpu];
        cudaStream_t s = f.stream;
        f.enqueue = [e, s](int) { PK_CUDA_CHECK(cudaGraphLaunch(e, s)); };
      } else {
        const bool first = i == 0, last = i + 1 == gpus_.size();
        cudaStream_t s = f.stream;
        Impl& impl = impl_;
        f.enqueue = [&impl, gpu, s, first, last](int) {
          if (first) impl.group_begin();
          impl.enqueue(gpu, s);
          if (last) impl.group_end();
        };
      }
      flows.push_back(std::move(f));
    }
    std::vector<double> us;
    TimingOptions opt = ctx_.cfg.timing;
    opt.fixed_iters_per_sample = graph_ ? 1 : C;
    FlowTimer timer(ctx_.group, flows, ctx_.group.size(), ctx_.gate, ctx_.status, opt);
    timer.calibrate();
    const int per_graph = graph_ ? C : 1;
    // Our kernels' enqueue is a launch and nothing else: the next sample is queued while one
    // runs (FlowTimer::samples), which takes the eager launches' host time (~3 us a launch,
    // C per GPU) off the point. A library's enqueue may post work its host threads progress
    // (NCCL's proxy, NVSHMEM's): its samples stay one at a time.
    const bool overlap = !impl_.underlying().baseline();
    for (const Sample& s : timer.samples(ctx_.cfg.timing.samples, overlap))
      us.push_back(s.step_ms_per_op * 1e3 / per_graph);
    return us;
  }

  // nccl-tests' method (nccltests_method.h), its own graph of `iters` collectives in graph
  // mode; the median of `repeats` runs, microseconds per collective.
  double nccltests_us(int iters, int repeats, int launches, bool shift) {
    point_cost::Phase cost("nccl-tests");  // its graph's destruction (capture) is nested in it
    Graphs nt_graphs{ctx_.group, {}, {}};
    std::string err;
    bool skip = false;
    NcclTestsSteps steps;
    steps.barrier = [&] { comm_.barrier(); };
    steps.start = [&](int i) {
      guarded(err, skip, [&] {
        if (shift) impl_.set_iteration(i);
        enqueue_all();
      });
    };
    steps.complete = [&] { poll_streams(); };
    steps.begin_capture = [&] { begin_capture(err); };
    steps.end_capture = [&] {
      end_capture(nt_graphs, err);
      err = comm_.first_error(err);  // a rank that failed still meets the barrier that follows
    };
    steps.launch_graph = [&] {
      if (err.empty()) launch(nt_graphs);
    };
    steps.average = [&](double mine) {
      std::vector<double> all(comm_.size());
      comm_.allgather(&mine, all.data(), sizeof(double));
      double sum = 0;
      for (double v : all) sum += v;
      return sum / comm_.size();
    };
    double us = 0;
    collectively(comm_, [&] {
      std::vector<double> runs;
      for (int r = 0; r < repeats; ++r) {
        runs.push_back(nccltests_time_us(steady_host_clock(), iters, graph_ ? launches : 0, steps));
        // What the method's clock ran: `iters` collectives (graph: `launches` launches of them).
        point_cost::timed(runs.back() * 1e-3 * iters * (graph_ ? launches : 1));
      }
      us = summarize(runs).median;
      if (shift) impl_.set_iteration(0);  // the verified run uses the buffers' first window
      ctx_.status.check(gpus_);
    });
    err = comm_.first_error(err);  // eager: a failed call is one rank's until here
    if (!err.empty() && skip) throw SkipPoint(err);
    if (!err.empty()) throw std::runtime_error(err);
    return us;
  }

  // The verified run: the timed configuration (`timed` in graph mode, else the same eager
  // calls) once more on inputs of `seed` into poisoned outputs, every output element against
  // the reference; the row's check columns. A wrong element throws.
  void verify(Graphs& timed, uint64_t seed, Row& row) {
    point_cost::Phase cost("verify");
    collectively(comm_, [&] { fill(seed, false); });
    comm_.barrier();  // no rank's verified run reads a peer's input before the peer refilled it
    collectively(comm_, [&] {
      if (graph_) launch(timed);
      else enqueue_all();
      sync_all();
    });
    const Checked c = checked(seed);
    row["wrong"] = std::to_string(static_cast<uint64_t>(c.wrong));
    row["max_abs_err"] = fmt_num(c.max_abs, 4);
    row["max_rel_err"] = fmt_num(c.max_rel, 4);
    row["verified"] = c.wrong == 0 ? "yes" : "no";
    if (c.wrong > 0) {
      std::ostringstream os;
      os << static_cast<uint64_t>(c.wrong) << " wrong output elements (first on GPU " << c.first_gpu << " at index "
         << static_cast<uint64_t>(c.first_idx) << "; max abs err " << c.max_abs << ")";
      throw std::runtime_error(os.str());
    }
  }

 private:
  // completeColl as nccl-tests writes it (testStreamSynchronize): poll every stream,
  // yielding while none is done. Nothing else inside the clock: our status board (a device
  // read per GPU, several microseconds) is checked after it stops.
  void poll_streams() {
    std::vector<int> left = gpus_;
    while (!left.empty()) {
      bool idle = true;
      for (size_t i = 0; i < left.size();) {
        ctx_.group.set_device(left[i]);
        const cudaError_t q = cudaStreamQuery(ctx_.stream(left[i]));
        if (q == cudaErrorNotReady) {
          ++i;
          continue;
        }
        PK_CUDA_CHECK(q);
        left.erase(left.begin() + static_cast<long>(i));
        idle = false;
      }
      if (idle) std::this_thread::yield();
    }
  }

  // The check of every rank's outputs, gathered: wrong elements, largest errors, the first
  // wrong one.
  struct Checked {
    double wrong = 0, max_abs = 0, max_rel = 0, first_gpu = -1, first_idx = 0;
  };
  Checked checked(uint64_t seed) {
    Checked c;
    collectively(comm_, [&] {
      for (int gpu : gpus_) {
        ctx_.group.set_device(gpu);
        launch_check(impl_.output(gpu), p_.ref(gpu, seed), p_.dtype, ctx_.check_results.at(gpu), ctx_.stream(gpu));
      }
      for (int gpu : gpus_) {
        ctx_.group.set_device(gpu);
        CheckResult r{};
        PK_CUDA_CHECK(cudaMemcpyAsync(&r, ctx_.check_results.at(gpu), sizeof r, cudaMemcpyDeviceToHost, ctx_.stream(gpu)));
        PK_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream(gpu)));
        if (r.wrong && c.first_gpu < 0) {
          c.first_gpu = gpu;
          c.first_idx = static_cast<double>(r.first_bad);
        }
        c.wrong += static_cast<double>(r.wrong);
        c.max_abs = std::max(c.max_abs, bits_to_double(r.max_abs_bits));
        c.max_rel = std::max(c.max_rel, bits_to_double(r.max_rel_bits));
      }
    });
    const double mine[5] = {c.wrong, c.max_abs, c.max_rel, c.first_gpu, c.first_idx};
    std::vector<double> all(5 * comm_.size());
    comm_.allgather(mine, all.data(), sizeof mine);
    c.wrong = 0;
    c.first_gpu = -1;
    for (int r = 0; r < comm_.size(); ++r) {
      c.wrong += all[5 * r];
      c.max_abs = std::max(c.max_abs, all[5 * r + 1]);
      c.max_rel = std::max(c.max_rel, all[5 * r + 2]);
      if (c.first_gpu < 0 && all[5 * r + 3] >= 0) {
        c.first_gpu = all[5 * r + 3];
        c.first_idx = all[5 * r + 4];
      }
    }
    return c;
  }

  Context& ctx_;
  Comm& comm_;
  const Problem& p_;
  Impl& impl_;
  const std::vector<int>& gpus_;
  const bool graph_;
};

}  // namespace

void Runner::measure(const PointSpec& ps, Row& row) {
  const Problem& p = ps.problem;
  Impl& impl = *ps.impl;
  const bool graph = ps.mode == LaunchMode::graph;
  const uint64_t seed = ctx_.cfg.seed ^ (p.bytes * 0x9E3779B97F4A7C15ull) ^ static_cast<uint64_t>(p.layout);
  PointRun run(ctx_, ps);

  // No row but NVSHMEM's is timed with NVSHMEM in the process (coll_order.h: its host side
  // inflated every host-timed row): a run order that breaks this gives an error row, never a
  // figure. Every rank has NVSHMEM or none, so every rank throws here alike.
  if (ctx_.nvshmem && !initialises_nvshmem(impl.underlying().family()))
    throw std::runtime_error("timed after NVSHMEM was initialised in this process (its points must run last: "
                             "coll_order.h)");
  collectively(ctx_.group.comm(), [&] {
    const std::string why = impl.unavailable(p, ctx_);
    if (!why.empty()) throw SkipPoint(why);
  });
  collectively(ctx_.group.comm(), [&] {
    point_cost::within("setup", [&] { impl.prepare(p, ctx_); });
    point_cost::within("fill", [&] { run.fill(seed, true); });
  });
  // Every GPU's signals are zero before any launch.
  point_cost::within("barrier", [&] { ctx_.group.comm().barrier(); });
  row["config"] = impl.config();
  impl.describe(row);

  // One untimed collective: a broken implementation fails here, before any timing.
  collectively(ctx_.group.comm(), [&] {
    point_cost::Phase cost("first-run");
    run.enqueue_all();
    run.sync_all();
  });

  // The same count for every implementation: eager, C launches per sample; graph, one
  // launch of a graph of C.
  const int C = ops_per_sample(p.bytes, ctx_.cfg.ops_per_sample);
  Graphs graphs{ctx_.group, {}, {}};
  if (graph) point_cost::within("capture", [&] { run.capture_timed(graphs, C); });
  row["ops_per_graph"] = graph ? std::to_string(C) : "";
  const std::vector<double> us = run.time_samples(graphs, C);

  const int nt_iters = std::max(1, ctx_.cfg.nccltests_iters);
  const int nt_repeats = std::max(1, ctx_.cfg.nccltests_repeats);
  const int nt_launches = std::max(1, ctx_.cfg.nccltests_graph_launches);
  const bool shift = ctx_.cfg.nccltests_shift && impl.shifts();
  const double nt_us = run.nccltests_us(nt_iters, nt_repeats, nt_launches, shift);

  // After timing, on fresh inputs (another seed) into freshly poisoned outputs, so an
  // implementation that stopped writing after its first launch fails here.
  run.verify(graphs, seed ^ 0xC3A5C85C97CB3127ull, row);

  const SampleStats st = summarize(us);
  const double med = st.median;
  put_sample_counts(row, C, us.size());
  put_us_quantiles(row, "time_us", st, 1.0);  // the samples are in us already
  row["algbw_gbps"] = fmt_num(p.algbw_gbps(med * 1e-6));
  row["busbw_gbps"] = fmt_num(p.algbw_gbps(med * 1e-6) * p.factor());
  row["time_us_nccltests"] = fmt_num(nt_us);
  row["busbw_gbps_nccltests"] = fmt_num(p.algbw_gbps(nt_us * 1e-6) * p.factor());
  row["nccltests_iters"] = std::to_string(nt_iters);
  row["nccltests_repeats"] = std::to_string(nt_repeats);
  row["nccltests_graph_launches"] = graph ? std::to_string(nt_launches) : "";
  row["nccltests_shift"] = shift ? "yes" : "no";
}

ImplList no_impls() { return {}; }

// Each line's IMPLS function, wherever its file defines it.
#define PK_COLLECTIVE(name, impls) ImplList impls();
#include "microbench/collectives/coll_list.h"
#undef PK_COLLECTIVE

ImplList our_impls() {
  ImplList v;
#define PK_COLLECTIVE(name, impls) \
  for (auto& i : impls()) v.push_back(i);
#include "microbench/collectives/coll_list.h"
#undef PK_COLLECTIVE
  return v;
}
ImplList baseline_impls() {
  ImplList v = nccl_impls();
  const ImplList s = nvshmem_impls();
  v.insert(v.end(), s.begin(), s.end());
  return v;
}

}  // namespace pk::coll
