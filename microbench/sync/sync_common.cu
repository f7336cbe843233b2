#include "microbench/sync/sync_common.h"

#include <algorithm>
#include <cmath>

#include "kernels/sync_signal.cuh"
#include "kernels/sync_timing.cuh"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/stats.h"

namespace pk::sync {

namespace {
constexpr size_t kFlagBytes = 64 * 1024;
constexpr size_t kMaxIters = 1 << 20;
constexpr size_t kCyclesOffset = kFlagBytes;
constexpr size_t kRecordOffset = kCyclesOffset + kMaxIters * sizeof(uint32_t);
constexpr size_t kIntOffset = kRecordOffset + 4096;
constexpr size_t kScratchBytes = kIntOffset + 4096;
// The pointer chase walks 256 MiB: far beyond L2, so hops are HBM (or NVLink + HBM) trips.
constexpr size_t kChaseBytes = 256ull << 20;
}  // namespace

SyncContext::SyncContext(PeerGroup& g, SyncOptions o) : group_(g), opt_(o), status_(g), gate_(g), streams_(g) {
  if (opt_.iters < 1 || total_iters() > static_cast<int>(kMaxIters))
    throw ArgError("--iters must be in 1.." + std::to_string(kMaxIters - opt_.warmup_iters));
  scratch_ = group_.alloc(kScratchBytes, "sync scratch");
  chase_ = group_.alloc(kChaseBytes, "pointer-chase buffer");
  small_ = group_.alloc(4096, "small copy buffer");
  // The host-copy variants copy it: initialised, so a copy never reads memory nothing wrote
  // (compute-sanitizer initcheck flagged every such copy).
  collectively(group_.comm(), [&] {
    for (int g : group_.local_gpus()) {
      group_.set_device(g);
      PK_CUDA_CHECK(cudaMemset(small_.local(g), 0x5a, 4096));
      // Every variant reads its whole timing record back, also the fields it does not write.
      PK_CUDA_CHECK(cudaMemset(scratch_.local(g), 0, kScratchBytes));
    }
  });
  reset_flags();
}

SyncContext::~SyncContext() = default;

void SyncContext::sync_local(const std::vector<int>& gpus) {
  for (int g : gpus)
    if (drives(g)) {
      group_.set_device(g);
      cudaDeviceSynchronize();
    }
}

void SyncContext::reset_flags() {
  collectively(group_.comm(), [&] {
    for (int g : group_.local_gpus()) {
      group_.set_device(g);
      PK_CUDA_CHECK(cudaMemset(scratch_.local(g), 0, kFlagBytes));
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
  group_.barrier();  // no GPU signals a flag another process is still zeroing
}

int* SyncContext::flag(int from, int owner, int i) const {
  if (i < 0 || (i + 1) * 128 > static_cast<int>(kFlagBytes)) throw ArgError("too many flags");
  return reinterpret_cast<int*>(scratch_.at(from, owner) + 128 * i);
}

PeerTable<int> SyncContext::flag_table(int from, int i) const { return scratch_.table<int>(from, 128ull * i); }

int* SyncContext::local_flags(int gpu) {
  group_.set_device(gpu);
  PK_CUDA_CHECK(cudaMemset(scratch_.local(gpu), 0, kFlagBytes));
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  return reinterpret_cast<int*>(scratch_.local(gpu));
}
uint32_t* SyncContext::cycles(int gpu) { return reinterpret_cast<uint32_t*>(scratch_.local(gpu) + kCyclesOffset); }
TimingRecord* SyncContext::record(int gpu) { return reinterpret_cast<TimingRecord*>(scratch_.local(gpu) + kRecordOffset); }
int* SyncContext::scratch_int(int gpu) { return reinterpret_cast<int*>(scratch_.local(gpu) + kIntOffset); }

void SyncContext::on(int gpu, const std::function<void()>& fn) {
  if (solo_) {  // already in the driving process alone
    group_.set_device(gpu);
    fn();
    return;
  }
  collectively(group_.comm(), [&] {
    if (drives(gpu)) {
      group_.set_device(gpu);
      fn();
    }
  });
}

void SyncContext::barrier() {
  if (!solo_) group_.barrier();
}

LatencyResult SyncContext::solo(int gpu, const std::function<LatencyResult()>& fn) {
  LatencyResult r;
  on(gpu, [&] {
    solo_ = true;
    try {
      r = fn();
    } catch (...) {
      solo_ = false;
      throw;
    }
    solo_ = false;
  });
  return share(gpu, r);
}

LatencyResult SyncContext::share(int gpu, const LatencyResult& mine) {
  if (group_.processes() == 1) return mine;
  const int root = group_.owner_rank(gpu);
  auto& comm = group_.comm();
  LatencyResult r = mine;
  r.ns = comm.broadcast_doubles(mine.ns, root);
  r.clock_source = comm.broadcast_string(mine.clock_source, root);
  auto nums = comm.broadcast_doubles(
      {mine.clock_resolution_ns, double(mine.sm_a), double(mine.sm_b), mine.gbps, double(mine.ops_per_sample)}, root);
  r.clock_resolution_ns = nums[0];
  r.sm_a = static_cast<int>(nums[1]);
  r.sm_b = static_cast<int>(nums[2]);
  r.gbps = nums[3];
  r.ops_per_sample = static_cast<int>(nums[4]);
  return r;
}

double SyncContext::globaltimer_resolution_ns(int gpu) {
  auto it = gt_res_.find(gpu);
  if (it != gt_res_.end()) return it->second;
  group_.set_device(gpu);
  unsigned long long* d = reinterpret_cast<unsigned long long*>(scratch_int(gpu) + 16);
  globaltimer_resolution_kernel<<<1, 1>>>(200000, d, d + 1, record(gpu));
  PK_CUDA_CHECK_LAUNCH();
  unsigned long long h[2];
  PK_CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  gt_res_[gpu] = h[1] ? static_cast<double>(h[0]) : NAN;
  return gt_res_[gpu];
}

void SyncContext::sync_and_check(const std::vector<int>& gpus) {
  if (solo_) {
    for (int g : gpus) {
      group_.set_device(g);
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
    status_.check(gpus);
    return;
  }
  collectively(group_.comm(), [&] {
    std::vector<int> mine;
    for (int g : gpus)
      if (drives(g)) {
        group_.set_device(g);
        PK_CUDA_CHECK(cudaDeviceSynchronize());
        mine.push_back(g);
      }
    status_.check(mine);
  });
}

LatencyResult SyncContext::collect_local(int gpu) {
  group_.set_device(gpu);
  TimingRecord rec{};
  PK_CUDA_CHECK(cudaMemcpy(&rec, record(gpu), sizeof rec, cudaMemcpyDeviceToHost));
  std::vector<uint32_t> cyc(total_iters());
  PK_CUDA_CHECK(cudaMemcpy(cyc.data(), cycles(gpu), cyc.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  if (rec.gt_end <= rec.gt_start || rec.clk_end <= rec.clk_start)
    throw std::runtime_error("kernel did not record its timing (did it run to the end?)");
  const double cycles_per_ns = double(rec.clk_end - rec.clk_start) / double(rec.gt_end - rec.gt_start);
  LatencyResult r;
  r.clock_source = "clock64 calibrated against %globaltimer over the kernel";
  r.clock_resolution_ns = 1.0 / cycles_per_ns;  // one SM cycle
  r.sm_a = rec.sm;
  for (int i = opt_.warmup_iters; i < total_iters(); ++i) r.ns.push_back(cyc[i] / cycles_per_ns);
  return r;
}

LatencyResult SyncContext::collect(int gpu) {
  if (solo_) return collect_local(gpu);
  LatencyResult r;
  on(gpu, [&] { r = collect_local(gpu); });
  return share(gpu, r);
}

std::string Variant::name() const {
  std::string n = "sync/" + level + "/" + primitive + "/" + scope + "/" + semantics;
  if (!placement.empty()) n += "/" + placement;
  return n + "/participants:" + std::to_string(participants);
}

const std::vector<std::string>& sync_columns() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> v = {"study",    "level",        "primitive",     "scope",   "semantics",
                                  "placement", "participants", "gpu_a",         "gpu_b",   "sm_a",
                                  "sm_b",      "one_way_ns",   "round_trip_ns", "p10_ns",  "p90_ns",
                                  "min_ns",    "max_ns",       "spread_ns",     "samples", "gbps",
                                  "clock_source", "clock_resolution_ns", "sm_clock_mhz", "status", "error"};
    for (const auto& m : metadata_columns()) v.push_back(m);
    return v;
  }();
  return c;
}

double timed_ms(const LatencyResult& r) {
  double ns = 0;
  for (double x : r.ns) ns += x;
  return ns * r.ops_per_sample * 1e-6;
}

Row sync_row(const Variant& v, const LatencyResult& r) {
  Row row;
  if (r.ns.empty()) return row;
  // The quantity measured is one-way (or one operation) unless the variant times round trips.
  const double scale = v.round_trip ? 0.5 : 1.0;
  const SampleStats s = summarize(r.ns);
  row["one_way_ns"] = fmt_num(s.median * scale, 5);
  if (v.round_trip) row["round_trip_ns"] = fmt_num(s.median, 5);
  row["p10_ns"] = fmt_num(s.p10, 5);
  row["p90_ns"] = fmt_num(s.p90, 5);
  row["min_ns"] = fmt_num(s.min, 5);
  row["max_ns"] = fmt_num(s.max, 5);
  row["spread_ns"] = fmt_num(s.p90 - s.p10, 4);
  row["samples"] = std::to_string(s.n);
  if (r.gbps > 0) row["gbps"] = fmt_num(r.gbps);
  row["clock_source"] = r.clock_source;
  row["clock_resolution_ns"] = fmt_num(r.clock_resolution_ns, 4);
  if (r.sm_a >= 0) row["sm_a"] = std::to_string(r.sm_a);
  if (r.sm_b >= 0) row["sm_b"] = std::to_string(r.sm_b);
  return row;
}

std::vector<Variant> all_variants(const SyncMachine& m) {
  std::vector<Variant> v;
#define PK_SYNC_VARIANTS(name) add_##name##_variants(v, m);
#include "microbench/sync/sync_list.h"
#undef PK_SYNC_VARIANTS
  return v;
}

}  // namespace pk::sync
