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
#include "microbench/harness/stats.h"
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
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
  sms = static_cast<int>(g.comm().min(mine));
}

Context::~Context() = default;

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

void PkImpl::build_params(Context& ctx, const Problem& p, uint64_t count, uint64_t slot_elems, int handshake) {
  ctx_ = &ctx;
  p_ = p;
  pb_.clear();
  pf_.clear();
  for (int gpu : ctx.group.local_gpus()) {
    if (p.dtype == DType::bf16) {
      auto q = ctx.params<__nv_bfloat16>(gpu, count);
      q.slot_elems = slot_elems;
      q.handshake = handshake;
      pb_[gpu] = q;
    } else {
      auto q = ctx.params<float>(gpu, count);
      q.slot_elems = slot_elems;
      q.handshake = handshake;
      pf_[gpu] = q;
    }
  }
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

CheckResult check_output(const void* out, const RefSpec& spec, DType t) {
  CheckResult* d = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&d, sizeof(CheckResult)));
  CheckResult h{0, 0, 0, ~0ull};
  PK_CUDA_CHECK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  const int blocks = static_cast<int>(std::clamp<uint64_t>((spec.out_elems + 255) / 256, 1, 2048));
  if (t == DType::bf16)
    check_output_kernel<__nv_bfloat16><<<blocks, 256>>>(static_cast<const __nv_bfloat16*>(out), spec, d);
  else
    check_output_kernel<float><<<blocks, 256>>>(static_cast<const float*>(out), spec, d);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t copy = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  PK_CUDA_CHECK(launch);
  PK_CUDA_CHECK(sync);
  PK_CUDA_CHECK(copy);
  return h;
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

// Destroys captured graphs when the point ends, however it ends.
struct Graphs {
  PeerGroup& g;
  std::map<int, cudaGraphExec_t> exec;
  std::map<int, cudaGraph_t> graph;
  ~Graphs() {
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
  for (auto _ : state) {
    measure_point(state, row, [&] { measure(ps, row); });
    state.SetIterationTime(row.count("time_us_median") && !row["time_us_median"].empty()
                               ? std::stod(row["time_us_median"]) * 1e-6
                               : 0.0);
  }
  results_.put(ps.name(), row);
  idle_gap(ctx_.cfg.timing.gap_ms);
}

void Runner::measure(const PointSpec& ps, Row& row) {
  Comm& comm = ctx_.group.comm();
  const Problem& p = ps.problem;
  Impl& impl = *ps.impl;
  const std::vector<int>& gpus = ctx_.group.local_gpus();
  const bool graph = ps.mode == LaunchMode::graph;
  const uint64_t seed = ctx_.cfg.seed ^ (p.bytes * 0x9E3779B97F4A7C15ull) ^ static_cast<uint64_t>(p.layout);

  collectively(comm, [&] {
    const std::string why = impl.unavailable(p, ctx_);
    if (!why.empty()) throw SkipPoint(why);
  });
  collectively(comm, [&] {
    impl.prepare(p, ctx_);
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      cudaStream_t s = ctx_.stream(gpu);
      PK_CUDA_CHECK(cudaMemsetAsync(ctx_.sync.local(gpu), 0, kSyncBytes, s));  // fresh epochs and flags
      fill_input(impl.input(gpu), p.in_elems, p.dtype, seed, gpu, s);
      poison(impl.output(gpu), p.out_elems * p.elem_bytes(), s);
      PK_CUDA_CHECK(cudaStreamSynchronize(s));
    }
  });
  comm.barrier();  // every GPU's signals are zero before any launch
  row["config"] = impl.config();
  impl.describe(row);

  auto enqueue_all = [&] {
    impl.group_begin();
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      impl.enqueue(gpu, ctx_.stream(gpu));
    }
    impl.group_end();
  };
  auto sync_all = [&] {
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      PK_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream(gpu)));
    }
    ctx_.status.check(gpus);
  };

  // One untimed collective: a broken implementation fails here, before any timing.
  collectively(comm, [&] {
    enqueue_all();
    sync_all();
  });

  // Graph capture in three steps (nccl-tests' method times between them). Errors are kept,
  // not thrown, until every stream has left capture mode.
  auto guarded = [&](std::string& err, bool& skip, const std::function<void()>& fn) {
    if (!err.empty()) return;
    try {
      fn();
    } catch (const SkipPoint& e) {
      err = e.what();
      skip = true;
    } catch (const std::exception& e) {
      err = e.what();
    }
  };
  auto begin_capture = [&](std::string& err) {
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      const cudaError_t begin = cudaStreamBeginCapture(ctx_.stream(gpu), cudaStreamCaptureModeThreadLocal);
      if (err.empty() && begin != cudaSuccess) err = std::string("graph capture: ") + cudaGetErrorString(begin);
    }
  };
  auto end_capture = [&](Graphs& into, std::string& err) {
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      cudaGraph_t g = nullptr;
      const cudaError_t end = cudaStreamEndCapture(ctx_.stream(gpu), &g);
      if (g) into.graph[gpu] = g;
      if (err.empty() && end != cudaSuccess) err = std::string("graph capture: ") + cudaGetErrorString(end);
    }
    for (int gpu : gpus) {
      if (!err.empty()) break;
      ctx_.group.set_device(gpu);
      cudaGraphExec_t e = nullptr;
      const cudaError_t inst = cudaGraphInstantiate(&e, into.graph[gpu], 0);
      if (inst != cudaSuccess) err = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(inst);
      else into.exec[gpu] = e;
    }
  };
  auto capture = [&](Graphs& into, int count, std::string& err, bool& skip) {
    begin_capture(err);
    guarded(err, skip, [&] {
      for (int i = 0; i < count; ++i) enqueue_all();
    });
    end_capture(into, err);
  };
  auto launch = [&](Graphs& from) {
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      PK_CUDA_CHECK(cudaGraphLaunch(from.exec.at(gpu), ctx_.stream(gpu)));
    }
  };

  // The same count for every implementation: eager, C launches per sample; graph, one
  // launch of a graph of C.
  const int C = ops_per_sample(p.bytes, ctx_.cfg.ops_per_sample);
  Graphs graphs{ctx_.group, {}, {}};
  if (graph) {
    collectively(comm, [&] {
      std::string err;
      bool skip = false;
      capture(graphs, C, err, skip);
      if (!err.empty() && skip) throw SkipPoint(err);
      if (!err.empty()) throw std::runtime_error(err);
    });
  }
  row["ops_per_graph"] = graph ? std::to_string(C) : "";

  std::vector<Flow> flows;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const int gpu = gpus[i];
    Flow f;
    f.index = gpu;
    f.gpu = gpu;
    f.stream = ctx_.stream(gpu);
    f.enqueues_per_op = graph ? 1 : impl.enqueues_per_op();
    if (graph) {
      cudaGraphExec_t e = graphs.exec[gpu];
      cudaStream_t s = f.stream;
      f.enqueue = [e, s](int) { PK_CUDA_CHECK(cudaGraphLaunch(e, s)); };
    } else {
      const bool first = i == 0, last = i + 1 == gpus.size();
      cudaStream_t s = f.stream;
      f.enqueue = [&impl, gpu, s, first, last](int) {
        if (first) impl.group_begin();
        impl.enqueue(gpu, s);
        if (last) impl.group_end();
      };
    }
    flows.push_back(std::move(f));
  }
  std::vector<double> us;
  {
    TimingOptions opt = ctx_.cfg.timing;
    opt.fixed_iters_per_sample = graph ? 1 : C;
    FlowTimer timer(ctx_.group, flows, ctx_.group.size(), ctx_.gate, ctx_.status, opt);
    timer.calibrate();
    const int per_graph = graph ? C : 1;
    for (int i = 0; i < ctx_.cfg.timing.samples; ++i) us.push_back(timer.sample().step_ms_per_op * 1e3 / per_graph);
  }

  // nccl-tests' method (nccltests_method.h): its own graph of `iters` collectives in graph
  // mode, launched once (-G 1).
  const int nt_iters = std::max(1, ctx_.cfg.nccltests_iters);
  const int nt_repeats = std::max(1, ctx_.cfg.nccltests_repeats);
  const int nt_launches = std::max(1, ctx_.cfg.nccltests_graph_launches);
  Graphs nt_graphs{ctx_.group, {}, {}};
  std::string nt_err;
  bool nt_skip = false;
  NcclTestsSteps steps;
  steps.barrier = [&] { comm.barrier(); };
  const bool shift = ctx_.cfg.nccltests_shift && impl.shifts();
  steps.start = [&](int i) {
    guarded(nt_err, nt_skip, [&] {
      if (shift) impl.set_iteration(i);
      enqueue_all();
    });
  };
  // completeColl as nccl-tests writes it (testStreamSynchronize): poll every stream,
  // yielding while none is done. Nothing else inside the clock: our status board (a device
  // read per GPU, several microseconds) is checked after it stops.
  steps.complete = [&] {
    std::vector<int> left = gpus;
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
  };
  steps.begin_capture = [&] { begin_capture(nt_err); };
  steps.end_capture = [&] {
    end_capture(nt_graphs, nt_err);
    nt_err = comm.first_error(nt_err);  // a rank that failed still meets the barrier that follows
  };
  steps.launch_graph = [&] {
    if (nt_err.empty()) launch(nt_graphs);
  };
  steps.average = [&](double mine) {
    std::vector<double> all(comm.size());
    comm.allgather(&mine, all.data(), sizeof(double));
    double sum = 0;
    for (double v : all) sum += v;
    return sum / comm.size();
  };
  double nt_us = 0;
  collectively(comm, [&] {
    std::vector<double> runs;
    for (int r = 0; r < nt_repeats; ++r) runs.push_back(nccltests_time_us(steady_host_clock(), nt_iters, graph ? nt_launches : 0, steps));
    nt_us = summarize(runs).median;
    if (shift) impl.set_iteration(0);  // the verified run uses the buffers' first window
    ctx_.status.check(gpus);
  });
  nt_err = comm.first_error(nt_err);  // eager: a failed call is one rank's until here
  if (!nt_err.empty() && nt_skip) throw SkipPoint(nt_err);
  if (!nt_err.empty()) throw std::runtime_error(nt_err);

  // The verified run: the exact timed configuration (the same graph, or the same eager
  // calls) once more on fresh inputs (a new seed) into freshly poisoned outputs, so an
  // implementation that stopped writing after its first launch fails here.
  const uint64_t check_seed = seed ^ 0xC3A5C85C97CB3127ull;
  collectively(comm, [&] {
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      cudaStream_t s = ctx_.stream(gpu);
      fill_input(impl.input(gpu), p.in_elems, p.dtype, check_seed, gpu, s);
      poison(impl.output(gpu), p.out_elems * p.elem_bytes(), s);
      PK_CUDA_CHECK(cudaStreamSynchronize(s));
    }
  });
  comm.barrier();  // no rank's verified run reads a peer's input before the peer refilled it
  collectively(comm, [&] {
    if (graph) launch(graphs);
    else enqueue_all();
    sync_all();
  });
  double wrong = 0, max_abs = 0, max_rel = 0, first_gpu = -1, first_idx = 0;
  collectively(comm, [&] {
    for (int gpu : gpus) {
      ctx_.group.set_device(gpu);
      const CheckResult r = check_output(impl.output(gpu), p.ref(gpu, check_seed), p.dtype);
      if (r.wrong && first_gpu < 0) {
        first_gpu = gpu;
        first_idx = static_cast<double>(r.first_bad);
      }
      wrong += static_cast<double>(r.wrong);
      max_abs = std::max(max_abs, bits_to_double(r.max_abs_bits));
      max_rel = std::max(max_rel, bits_to_double(r.max_rel_bits));
    }
  });
  {
    const double mine[5] = {wrong, max_abs, max_rel, first_gpu, first_idx};
    std::vector<double> all(5 * comm.size());
    comm.allgather(mine, all.data(), sizeof mine);
    wrong = 0;
    first_gpu = -1;
    for (int r = 0; r < comm.size(); ++r) {
      wrong += all[5 * r];
      max_abs = std::max(max_abs, all[5 * r + 1]);
      max_rel = std::max(max_rel, all[5 * r + 2]);
      if (first_gpu < 0 && all[5 * r + 3] >= 0) {
        first_gpu = all[5 * r + 3];
        first_idx = all[5 * r + 4];
      }
    }
  }
  row["wrong"] = std::to_string(static_cast<uint64_t>(wrong));
  row["max_abs_err"] = fmt_num(max_abs, 4);
  row["max_rel_err"] = fmt_num(max_rel, 4);
  row["verified"] = wrong == 0 ? "yes" : "no";
  if (wrong > 0) {
    std::ostringstream os;
    os << static_cast<uint64_t>(wrong) << " wrong output elements (first on GPU " << first_gpu << " at index "
       << static_cast<uint64_t>(first_idx) << "; max abs err " << max_abs << ")";
    throw std::runtime_error(os.str());
  }

  const double med = quantile(us, 0.5);
  row["iters_per_sample"] = std::to_string(C);
  row["samples"] = std::to_string(us.size());
  row["time_us_median"] = fmt_num(med);
  row["time_us_p10"] = fmt_num(quantile(us, 0.1));
  row["time_us_p90"] = fmt_num(quantile(us, 0.9));
  row["time_us_min"] = fmt_num(*std::min_element(us.begin(), us.end()));
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
