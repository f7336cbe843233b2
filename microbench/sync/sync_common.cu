#include "sync_common.h"

#include <algorithm>
#include <cmath>

#include "../../kernels/sync_signal.cuh"
#include "../../kernels/sync_timing.cuh"
#include "../harness/cuda_check.h"
#include "../harness/metadata.h"
#include "../harness/stats.h"

namespace pk::sync {

namespace {
constexpr size_t kFlagBytes = 64 * 1024;
constexpr size_t kMaxIters = 1 << 20;
constexpr size_t kCyclesOffset = kFlagBytes;
constexpr size_t kRecordOffset = kCyclesOffset + kMaxIters * sizeof(uint32_t);
constexpr size_t kIntOffset = kRecordOffset + 4096;
constexpr size_t kScratchBytes = kIntOffset + 4096;
}  // namespace

SyncContext::SyncContext(const Topology& t, PeerGroup& g, SyncOptions o) : topo_(t), group_(g), opt_(o) {
  if (opt_.iters < 1 || total_iters() > static_cast<int>(kMaxIters))
    throw ArgError("--iters must be in 1.." + std::to_string(kMaxIters - opt_.warmup_iters));
  for (int gpu = 0; gpu < t.count(); ++gpu)
    if (group_.drives(gpu)) scratch_[gpu] = static_cast<char*>(group_.alloc(gpu, kScratchBytes));
}

SyncContext::~SyncContext() = default;

int* SyncContext::flags(int gpu, int count) {
  if (count * 128 > static_cast<int>(kFlagBytes)) throw ArgError("too many flags");
  PK_CUDA_CHECK(cudaSetDevice(gpu));
  PK_CUDA_CHECK(cudaMemset(scratch_.at(gpu), 0, kFlagBytes));
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  return reinterpret_cast<int*>(scratch_.at(gpu));
}
uint32_t* SyncContext::cycles(int gpu) { return reinterpret_cast<uint32_t*>(scratch_.at(gpu) + kCyclesOffset); }
TimingRecord* SyncContext::record(int gpu) { return reinterpret_cast<TimingRecord*>(scratch_.at(gpu) + kRecordOffset); }
int* SyncContext::scratch_int(int gpu) { return reinterpret_cast<int*>(scratch_.at(gpu) + kIntOffset); }

unsigned long long* SyncContext::peer_table(int gpu, const std::map<int, const void*>& entries) {
  unsigned long long host[kMaxGpus] = {};
  for (const auto& [pe, p] : entries) {
    if (pe < 0 || pe >= kMaxGpus) throw ArgError("peer table holds GPUs 0.." + std::to_string(kMaxGpus - 1));
    host[pe] = reinterpret_cast<unsigned long long>(p);
  }
  auto* table = reinterpret_cast<unsigned long long*>(scratch_int(gpu) + 64);  // after the smid and timer words
  PK_CUDA_CHECK(cudaSetDevice(gpu));
  PK_CUDA_CHECK(cudaMemcpy(table, host, sizeof host, cudaMemcpyHostToDevice));
  return table;
}

void* SyncContext::big(int gpu, const std::string& name, size_t bytes) {
  auto key = std::make_pair(gpu, name);
  auto it = big_.find(key);
  if (it != big_.end()) return it->second;
  void* p = group_.alloc(gpu, bytes);
  big_[key] = p;
  return p;
}

double SyncContext::globaltimer_resolution_ns(int gpu) {
  auto it = gt_res_.find(gpu);
  if (it != gt_res_.end()) return it->second;
  PK_CUDA_CHECK(cudaSetDevice(gpu));
  unsigned long long* d = reinterpret_cast<unsigned long long*>(scratch_int(gpu) + 16);
  globaltimer_resolution_kernel<<<1, 1>>>(200000, d, d + 1, record(gpu));
  PK_CUDA_CHECK_LAUNCH();
  unsigned long long h[2];
  PK_CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  gt_res_[gpu] = h[1] ? static_cast<double>(h[0]) : NAN;
  return gt_res_[gpu];
}

void SyncContext::sync_and_check(const std::vector<int>& gpus) {
  for (int g : gpus) {
    PK_CUDA_CHECK(cudaSetDevice(g));
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  status_.check(gpus);
}

LatencyResult SyncContext::collect(int gpu) {
  PK_CUDA_CHECK(cudaSetDevice(gpu));
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

namespace {
double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}
}  // namespace

Row sync_row(const Variant& v, const LatencyResult& r) {
  Row row;
  if (r.ns.empty()) return row;
  // The quantity measured is one-way (or one operation) unless the variant times round trips.
  const double scale = v.round_trip ? 0.5 : 1.0;
  const SampleStats s = summarize(r.ns);
  row["one_way_ns"] = fmt_num(s.median * scale, 5);
  if (v.round_trip) row["round_trip_ns"] = fmt_num(s.median, 5);
  const double p10 = percentile(r.ns, 0.1), p90 = percentile(r.ns, 0.9);
  row["p10_ns"] = fmt_num(p10, 5);
  row["p90_ns"] = fmt_num(p90, 5);
  row["min_ns"] = fmt_num(s.min, 5);
  row["max_ns"] = fmt_num(s.max, 5);
  row["spread_ns"] = fmt_num(p90 - p10, 4);
  row["samples"] = std::to_string(s.n);
  if (r.gbps > 0) row["gbps"] = fmt_num(r.gbps);
  row["clock_source"] = r.clock_source;
  row["clock_resolution_ns"] = fmt_num(r.clock_resolution_ns, 4);
  if (r.sm_a >= 0) row["sm_a"] = std::to_string(r.sm_a);
  if (r.sm_b >= 0) row["sm_b"] = std::to_string(r.sm_b);
  return row;
}

}  // namespace pk::sync
