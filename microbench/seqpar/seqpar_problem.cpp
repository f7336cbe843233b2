#include "microbench/seqpar/seqpar_problem.h"

#include <algorithm>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::seqpar {

void check_shape(const RingShape& s) {
  if (s.head_dim < 64 || s.head_dim > 256 || s.head_dim % 64 != 0)
    throw ArgError("--head-dim=" + std::to_string(s.head_dim) + ": a multiple of 64 up to 256 (the GEMM's K blocks)");
  if (s.batch < 1) throw ArgError("--batch=" + std::to_string(s.batch) + ": at least 1");
  if (s.heads < 1 || s.heads > 4096) throw ArgError("--heads: " + std::to_string(s.heads) + ": 1 to 4096");
  if (s.seq < 256 || s.seq % 256 != 0 || s.seq > (1 << 20))
    throw ArgError("--seqs: " + std::to_string(s.seq) + ": S per rank is a multiple of 256 (the stand-in's tiles) up to 1M");
  if (s.ranks < 2 || s.ranks > 8) throw ArgError("--world: the ring runs on 2 to 8 ranks, not " + std::to_string(s.ranks));
  if (s.block_bytes() >= (uint64_t(1) << 40) || uint64_t(s.bh()) * s.seq >= (uint64_t(1) << 31))
    throw ArgError("--seqs/--heads/--batch: a block of " + std::to_string(s.block_bytes()) + " bytes is too large");
}

const std::vector<ImplInfo>& impl_infos() {
  static const std::vector<ImplInfo> v = {
#define PK_SEQPAR_IMPL(name, family, baseline, takes_sms, computes, moves, summary) \
  {#name, family, baseline, takes_sms, computes, moves, summary},
#include "microbench/seqpar/seqpar_list.h"
#undef PK_SEQPAR_IMPL
  };
  return v;
}

const ImplInfo& impl_info(const std::string& name) {
  return find_named(impl_infos(), name, "--impls: unknown implementation");
}

std::string Point::name() const {
  return "seqpar/ring_kv/" + impl + (sms ? "[sms=" + std::to_string(sms) + "]" : "") + "/H" + std::to_string(heads) + "/S" +
         std::to_string(seq);
}

std::vector<Point> build_points(const Grid& g) {
  std::vector<Point> out;
  for (int h : g.heads)
    for (int s : g.seqs)
      for (const ImplInfo& info : impl_infos()) {
        if (std::find(g.impls.begin(), g.impls.end(), info.name) == g.impls.end()) continue;
        if (!info.takes_sms) {
          out.push_back({info.name, s, h, 0});
          continue;
        }
        for (int k : g.sms) out.push_back({info.name, s, h, k});
      }
  return out;
}

namespace {

std::vector<int> parse_sms(const std::string& s) {
  const std::vector<int> out = parse_sms_list(s, 1024, " blocks, or auto");
  if (out.empty()) throw ArgError("--sms: an empty list");
  std::vector<int> uniq;
  for (int x : out)
    if (std::find(uniq.begin(), uniq.end(), x) == uniq.end()) uniq.push_back(x);
  return uniq;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = {
      {"default",
       "the paper's Figure 10 shape (B = 16, H = 16, D = 128), S per rank 256 to 16K doubling, every schedule, inter_sm at "
       "auto, 8, 16 and 32 communication SMs",
       {{"all", "256:16384", "16", "auto,8,16,32"}}},
      {"heads",
       "the tuning table's grid: H = 8, 16, 32 (B = 16), S per rank 512 to 8K by 4, every schedule, inter_sm at 8, 16, 32",
       {{"all", "512:8192:x4", "8,16,32", "8,16,32"}}},
      {"main",
       "what scripts/run.sh's main job measures (its 5-minute budget): B = 16, H = 16, S per rank 2K, every schedule, "
       "inter_sm at 16 and 32 communication SMs",
       {{"all", "2048", "16", "16,32"}}},
      {"smoke", "a quick look: B = 16, H = 16, S per rank 256 and 1024, every schedule, inter_sm at 16 SMs",
       {{"all", "256,1024", "16", "16"}}},
  };
  return v;
}

const Preset& preset(const std::string& name) { return find_named(presets(), name, "--preset: unknown preset"); }

std::vector<Point> plan_points(const Preset& p, const GridText& f) {
  std::vector<Point> out;
  for (const GridText& g : p.grids) {
    auto pick = [](const std::string& flag, const std::string& dflt) { return flag.empty() ? dflt : flag; };
    Grid grid;
    grid.impls = parse_name_list(pick(f.impls, g.impls), names_of(impl_infos()), "implementation (--impls)");
    grid.seqs = parse_ints_within("--seqs", pick(f.seqs, g.seqs), 1, 1 << 20);
    for (int s : grid.seqs)
      if (s < 256 || s % 256 != 0) throw ArgError("--seqs: " + std::to_string(s) + ": S per rank is a multiple of 256");
    grid.heads = parse_ints_within("--heads", pick(f.heads, g.heads), 1, 4096);
    grid.sms = parse_sms(pick(f.sms, g.sms));
    for (const Point& pt : build_points(grid)) {
      const std::string n = pt.name();
      if (std::none_of(out.begin(), out.end(), [&](const Point& q) { return q.name() == n; })) out.push_back(pt);
    }
  }
  return out;
}

double planned_pass_ms(const RingShape& s, const std::string& impl) {
  const ImplInfo& i = impl_info(impl);
  const double compute = i.computes ? s.ranks * s.step_flops() / 600e12 : 0;
  const double moves = i.moves ? (s.ranks - 1) * double(s.block_bytes()) / 150e9 : 0;
  return (compute + moves) * 1e3;
}

int auto_sms(int budget) { return std::clamp(budget / 8, 4, 32); }

double link_bytes_per_useful(const std::string& impl, int seq) {
  if (impl == "compute_only") return 0;
  if (impl == "intra_sm") return double(seq) / 128;
  return 1;
}

std::string link_bytes_basis(const std::string& impl) {
  if (impl == "compute_only") return "computed: nothing moves";
  if (impl == "intra_sm") return "computed: each K/V tile read from the peer once per 128-row Q tile (S/128)";
  return "computed: each block crosses the link once";
}

const std::vector<std::string>& seqpar_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> c = {
        // (ranks: a metadata column: the group's ranks, virtual ones included)
        "study", "op", "impl", "family", "seq_per_rank", "heads", "batch", "head_dim", "processes", "sms", "compute_sms",
        "config",
        // the whole pass (N steps) and one step of it
        "iters_per_sample", "samples", "op_us_median", "step_us_median", "step_us_p10", "step_us_p90", "step_us_min",
        "steps", "block_bytes", "tflops", "copy_gbps",
        // bytes over the links per useful byte: computed, and from NVML's NVLink data counters where the
        // driver exposes them (real peers only); the L2 hit rate (not measured)
        "link_bytes_per_useful", "link_bytes_basis", "link_bytes_per_useful_nvml", "l2_hit_rate",
        // the check of the final run
        "verified", "wrong_kv", "wrong_out", "max_rel_err", "status", "error"};
    for (const auto& m : metadata_columns()) c.push_back(m);
    return c;
  }();
  return v;
}

}  // namespace pk::seqpar
