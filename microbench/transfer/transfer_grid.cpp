#include "transfer_grid.h"

#include <algorithm>
#include <set>

#include "../harness/args.h"
#include "../harness/cuda_check.h"
#include "mechanism.h"

namespace pk::transfer {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

struct MechGrid {
  std::string mech;
  std::vector<uint64_t> sizes;
  std::vector<int> sms, threads, depths, bpsm, vecs, unrolls;  // {0}: mechanism default
};

struct Sweep {
  std::string name;
  std::vector<std::string> directions, patterns;
  uint64_t total;
  std::vector<MechGrid> mechs;
  bool drop_unfit = false;      // tuning grids span combinations that may not fit
  std::vector<int> gpu_counts = {0};  // 0: every visible GPU
};

std::vector<uint64_t> pow2_range(uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> v;
  for (uint64_t x = lo; x <= hi; x *= 2) v.push_back(x);
  return v;
}

uint64_t largest_pow2_at_most(uint64_t x) {
  uint64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

std::vector<Sweep> preset(const std::string& name, const GpuInfo& g) {
  const int S = g.sm_count;
  const uint64_t tma_max = largest_pow2_at_most(tma_bulk_mechanism().max_message(g));
  // The largest bulk message, in whole KiB (one warp, one stage): "up to the shared-memory limit".
  const uint64_t tma_limit = tma_bulk_mechanism().max_message(g) / KiB * KiB;
  std::vector<uint64_t> tma_sizes = pow2_range(16, tma_max);
  if (tma_limit > tma_max) tma_sizes.push_back(tma_limit);
  const uint64_t tile_max = largest_pow2_at_most(tma_tile_mechanism().max_message(g));
  std::vector<int> sm_sweep;
  for (int s : {1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128})
    if (s < S) sm_sweep.push_back(s);
  sm_sweep.push_back(S);

  Sweep fig2{"fig2", {"push", "pull"}, {"one_way", "bidir"}, 1 * GiB,
             {{"ce", pow2_range(16, 1 * GiB), {0}, {0}, {0}, {0}, {0}, {0}},
              {"tma_bulk", tma_sizes, {S}, {0}, {0}, {0}, {0}, {0}},
              {"tma_tile", pow2_range(16, tile_max), {S}, {0}, {0}, {0}, {0}, {0}},
              {"reg", pow2_range(16, 1 * MiB), {S}, {0}, {0}, {0}, {0}, {0}},
              {"reg_l2hint", pow2_range(1 * KiB, 1 * MiB), {S}, {0}, {0}, {0}, {0}, {0}}}};
  const std::vector<uint64_t> fig3_sizes = {2 * KiB, 16 * KiB, 64 * KiB};
  Sweep fig3{"fig3", {"push", "pull"}, {"one_way"}, 256 * MiB,
             {{"tma_bulk", fig3_sizes, sm_sweep, {0}, {0}, {0}, {0}, {0}},
              {"tma_tile", fig3_sizes, sm_sweep, {0}, {0}, {0}, {0}, {0}},
              {"reg", fig3_sizes, sm_sweep, {0}, {0}, {0}, {0}, {0}}}};
  Sweep tune{"tune", {"push", "pull"}, {"one_way"}, 1 * GiB,
             {{"tma_bulk", {16 * KiB}, {S}, {32, 64, 128, 256}, {1, 2, 3, 4, 6, 8}, {1, 2}, {0}, {0}},
              {"tma_tile", {16 * KiB}, {S}, {32, 64, 128, 256}, {1, 2, 3, 4, 6, 8}, {1, 2}, {0}, {0}},
              {"reg", {64 * KiB}, {S}, {256, 512, 1024}, {0}, {1, 2}, {4, 8, 16}, {1, 2, 4, 8}},
              {"reg_l2hint", {64 * KiB}, {S}, {256, 512, 1024}, {0}, {1, 2}, {16}, {1, 2, 4, 8}}},
             true};
  // Both ends issue at once (source pushes, destination pulls): does mixing write and read
  // traffic on one link direction move more than either alone?
  Sweep mixed{"mixed", {"mixed"}, {"one_way", "bidir"}, 1 * GiB,
              {{"ce", {16 * MiB, 256 * MiB, 1 * GiB}, {0}, {0}, {0}, {0}, {0}, {0}},
               {"tma_bulk", {2 * KiB, 16 * KiB, 64 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}},
               {"tma_tile", {16 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}},
               {"reg", {64 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}}}};
  // Fan-out, fan-in and all-pairs traffic over 2, 4 and 8 GPUs (counts above the machine's
  // are skipped with the reason).
  Sweep scale{"scale", {"push", "pull"}, {"one_to_all", "all_to_one", "all_pairs"}, 1 * GiB,
              {{"ce", {1 * GiB}, {0}, {0}, {0}, {0}, {0}, {0}},
               {"tma_bulk", {16 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}},
               {"reg", {64 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}}},
              false,
              {2, 4, 8}};
  Sweep local{"local", {"push"}, {"local"}, 1 * GiB,
              {{"ce", {1 * GiB}, {0}, {0}, {0}, {0}, {0}, {0}},
               {"tma_bulk", {16 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}},
               {"reg", {64 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}}}};
  Sweep smoke{"smoke", {"push", "pull"}, {"one_way", "bidir"}, 64 * MiB,
              {{"ce", {64 * KiB, 16 * MiB}, {0}, {0}, {0}, {0}, {0}, {0}},
               {"tma_bulk", {2 * KiB, 16 * KiB}, {8, S}, {0}, {0}, {0}, {0}, {0}},
               {"tma_tile", {2 * KiB, 16 * KiB}, {8, S}, {0}, {0}, {0}, {0}, {0}},
               {"reg", {4 * KiB, 64 * KiB}, {8, S}, {0}, {0}, {0}, {0}, {0}}}};
  Sweep custom{"custom", {"push"}, {"one_way"}, 1 * GiB,
               {{"ce", {16 * KiB}, {0}, {0}, {0}, {0}, {0}, {0}},
                {"tma_bulk", {16 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}},
                {"tma_tile", {16 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}},
                {"reg", {16 * KiB}, {S}, {0}, {0}, {0}, {0}, {0}}}};
  if (name == "default") return {fig2, fig3, tune, mixed, local};
  if (name == "mixed") return {mixed};
  if (name == "scale") return {scale};
  if (name == "fig2") return {fig2};
  if (name == "fig3") return {fig3};
  if (name == "tune") return {tune};
  if (name == "local") return {local};
  if (name == "smoke") return {smoke};
  if (name == "custom") return {custom};
  throw ArgError("unknown preset '" + name + "'");
}

bool is_fan(const std::string& pattern) {
  return pattern == "one_to_all" || pattern == "all_to_one" || pattern == "all_pairs";
}

std::vector<int> int_list_or(const std::string& s, const std::vector<int>& keep, int all_value) {
  return s.empty() ? keep : parse_int_list(s, all_value);
}

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> v = {"default", "fig2", "fig3", "tune", "mixed", "scale", "local", "smoke", "custom"};
  return v;
}

std::vector<TransferPoint> build_grid(const GridOptions& o, const GpuInfo& g, int* dropped) {
  std::vector<Sweep> sweeps = preset(o.preset, g);
  const bool knobs_overridden = !o.sms.empty() || !o.threads.empty() || !o.depths.empty() ||
                                !o.blocks_per_sm.empty() || !o.vecs.empty() || !o.unrolls.empty() ||
                                !o.sizes.empty();
  std::vector<std::string> mech_filter;
  if (!o.mechanisms.empty()) {
    std::vector<std::string> known;
    for (const Mechanism* m : mechanisms()) known.push_back(m->name());
    mech_filter = parse_name_list(o.mechanisms, known, "mechanism");
  }
  int gpu_a = 0, gpu_b = 1;
  if (!o.gpus.empty()) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : o.gpus + ",") {
      if (c == ',') {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (parts.empty() || parts.size() > 2 || parts[0].empty())
      throw ArgError("--gpus takes one or two GPU indices: A or A,B");
    gpu_a = parse_int_list(parts[0], 0).at(0);
    gpu_b = parts.size() == 2 && !parts[1].empty() ? parse_int_list(parts[1], 0).at(0) : (gpu_a == 0 ? 1 : 0);
  }

  std::vector<TransferPoint> out;
  std::set<std::string> seen;
  int drop = 0;
  for (Sweep& sw : sweeps) {
    auto dirs = o.directions.empty() ? sw.directions : parse_name_list(o.directions, direction_names(), "direction");
    auto pats = o.patterns.empty() ? sw.patterns : parse_name_list(o.patterns, pattern_names(), "pattern");
    const uint64_t total = o.total_bytes ? o.total_bytes : sw.total;
    const auto counts = o.gpu_counts.empty() ? sw.gpu_counts : parse_int_list(o.gpu_counts, 0);
    std::vector<MechGrid> grids = sw.mechs;
    for (const std::string& m : mech_filter) {  // a mechanism the preset lacks, asked by name
      bool have = std::any_of(grids.begin(), grids.end(), [&](const MechGrid& x) { return x.mech == m; });
      if (!have) grids.push_back({m, {16 * KiB}, {g.sm_count}, {0}, {0}, {0}, {0}, {0}});
    }
    for (MechGrid& mg : grids) {
      if (!mech_filter.empty() && std::find(mech_filter.begin(), mech_filter.end(), mg.mech) == mech_filter.end())
        continue;
      const Mechanism& mech = mechanism(mg.mech);
      auto sizes = o.sizes.empty() ? mg.sizes : parse_size_list(o.sizes);
      const bool sm_knobs = mech.uses_sms();
      auto sms = sm_knobs ? int_list_or(o.sms, mg.sms, g.sm_count) : std::vector<int>{0};
      auto threads = sm_knobs ? int_list_or(o.threads, mg.threads, 0) : std::vector<int>{0};
      auto bpsm = sm_knobs ? int_list_or(o.blocks_per_sm, mg.bpsm, 0) : std::vector<int>{0};
      auto depths = mg.mech.rfind("tma", 0) == 0 ? int_list_or(o.depths, mg.depths, 0) : std::vector<int>{0};
      const bool reg = mg.mech.rfind("reg", 0) == 0;
      auto vecs = reg ? int_list_or(o.vecs, mg.vecs, 0) : std::vector<int>{0};
      auto unrolls = reg ? int_list_or(o.unrolls, mg.unrolls, 0) : std::vector<int>{0};
      for (const auto& dir : dirs)
        for (const auto& pat : pats)
          for (int ngpus : is_fan(pat) ? counts : std::vector<int>{0})  // counts apply to fan patterns
          for (uint64_t size : sizes)
            for (int s : sms)
              for (int t : threads)
                for (int b : bpsm)
                  for (int d : depths)
                    for (int v : vecs)
                      for (int u : unrolls) {
                        TransferPoint p;
                        p.sweep = sw.name;
                        p.mechanism = mg.mech;
                        p.direction = dir;
                        p.pattern = pat;
                        p.gpu_a = gpu_a;
                        p.gpu_b = gpu_b;
                        if (ngpus == 1) continue;  // a fan over one GPU moves nothing
                        p.gpu_count = ngpus;
                        p.message_bytes = size;
                        p.total_bytes = total;
                        p.max_ops = o.max_ops;
                        p.sms = s;
                        p.threads = t;
                        p.blocks_per_sm = b;
                        p.depth = d;
                        p.vec_bytes = v;
                        p.unroll = u;
                        p.auto_fit = !sw.drop_unfit && !knobs_overridden;
                        try {
                          mech.resolve(p, g);
                        } catch (const ArgError&) {
                          if (sw.drop_unfit && !knobs_overridden) {
                            ++drop;
                            continue;
                          }
                          throw;
                        }
                        if (seen.insert(p.name()).second) out.push_back(p);
                      }
    }
  }
  if (dropped) *dropped = drop;
  if (out.empty()) throw ArgError("the selected grid has no points");
  return out;
}

}  // namespace pk::transfer
