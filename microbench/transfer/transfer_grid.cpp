#include "microbench/transfer/transfer_grid.h"

#include <algorithm>
#include <map>
#include <set>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/mechanism.h"

namespace pk::transfer {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// A preset's values for one mechanism: message sizes, and lists for some of its knobs (a
// knob not listed takes its default).
struct MechGrid {
  std::string mech;
  std::vector<uint64_t> sizes;
  std::map<std::string, std::vector<int>> knobs;
};

struct Sweep {
  std::string name;
  std::vector<std::string> directions, patterns;
  uint64_t total;
  std::vector<MechGrid> mechs;
  bool drop_unfit = false;      // tuning grids span combinations that may not fit
  std::vector<int> gpu_counts = {0};  // 0: every visible GPU
  // Over the run's GPU pairs instead of --gpus' one: 1 every ordered pair, 2 every unordered
  // pair (both ways at once: bidir), 0 no.
  int every_pair = 0;
};

}  // namespace

// nvbandwidth's default buffer (its -b, 512 MiB): the nvbandwidth sweep's points move it per
// copy, as the tool's testcases do, so that the reference rows line up (transfer_ref.h).
const uint64_t kNvbandwidthBytes = 512ull << 20;

namespace {

// Points shaped as nvbandwidth's testcases (transfer_ref.h maps them): the copy engine
// copying the whole buffer per call, and the register copy over every SM with 512 threads a
// block (its SM copy kernel's shape), one way and both ways, push (its *_write_*) and pull
// (*_read_*), over every pair of GPUs (its matrices); on three or more GPUs also one-to-all
// and all-to-one over every GPU; on one GPU the local copy (device_local_copy).
std::vector<Sweep> nvbandwidth_sweeps(const GpuInfo& g, int gpu_count) {
  const uint64_t B = kNvbandwidthBytes;
  const std::vector<MechGrid> mechs = {{"ce", {B}, {}},
                                       {"reg", {64 * KiB}, {{"sms", {g.sm_count}}, {"threads", {512}}}}};
  if (gpu_count == 1) return {{"nvbandwidth", {"push"}, {"local"}, B, {{"ce", {B}, {}}}}};
  std::vector<Sweep> v = {{"nvbandwidth", {"push", "pull"}, {"one_way"}, B, mechs, false, {0}, 1},
                          {"nvbandwidth", {"push", "pull"}, {"bidir"}, B, mechs, false, {0}, 2}};
  if (gpu_count >= 3) v.push_back({"nvbandwidth", {"push", "pull"}, {"one_to_all", "all_to_one"}, B, mechs});
  return v;
}

// What only three or more GPUs show, every mechanism at its fan-out: one-to-all, all-to-one
// and all-pairs traffic over every GPU (per pair and aggregate GB/s), and Figure 3's SM
// sweep with a fan-out (how many SMs saturate one GPU's links to all its peers).
std::vector<Sweep> node_sweeps(const GpuInfo& g, const std::vector<int>& sm_sweep) {
  const int S = g.sm_count;
  Sweep fan{"fan", {"push", "pull"}, {"one_to_all", "all_to_one", "all_pairs"}, 1 * GiB, {}};
  for (const Mechanism* m : mechanisms()) {
    MechGrid mg{m->name(), {m->uses_sms() ? 64 * KiB : std::min<uint64_t>(1 * GiB, m->size_sweep(g).back())}, {}};
    if (m->name() == "tma_bulk" || m->name() == "tma_tile") mg.sizes = {16 * KiB};
    if (m->uses_sms()) mg.knobs[knobs::sms.name] = {S};
    fan.mechs.push_back(mg);
  }
  // One message size (TMA's best on NVLink): the fan-out's SM curve at 16 KiB; the full
  // size list stays in fig3 (one peer), which the main job also runs.
  const std::vector<uint64_t> sizes = {16 * KiB};
  Sweep fig3_fan{"fig3_fan", {"push"}, {"one_to_all"}, 256 * MiB,
                 {{"tma_bulk", sizes, {{"sms", sm_sweep}}},
                  {"tma_tile", sizes, {{"sms", sm_sweep}}},
                  {"reg", sizes, {{"sms", sm_sweep}}}}};
  return {fan, fig3_fan};
}

std::vector<Sweep> preset(const std::string& name, const GpuInfo& g, int gpu_count) {
  const int S = g.sm_count;
  std::vector<int> sm_sweep;
  for (int s : {1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128})
    if (s < S) sm_sweep.push_back(s);
  sm_sweep.push_back(S);

  // Every registered mechanism against message size, in registration order, its own sizes.
  Sweep fig2{"fig2", {"push", "pull"}, {"one_way", "bidir"}, 1 * GiB, {}};
  for (const Mechanism* m : mechanisms()) {
    MechGrid mg{m->name(), m->size_sweep(g), {}};
    if (m->uses_sms()) mg.knobs[knobs::sms.name] = {S};
    fig2.mechs.push_back(mg);
  }
  const std::vector<uint64_t> fig3_sizes = {2 * KiB, 16 * KiB, 64 * KiB};
  Sweep fig3{"fig3", {"push", "pull"}, {"one_way"}, 256 * MiB,
             {{"tma_bulk", fig3_sizes, {{"sms", sm_sweep}}},
              {"tma_tile", fig3_sizes, {{"sms", sm_sweep}}},
              {"reg", fig3_sizes, {{"sms", sm_sweep}}}}};
  const std::map<std::string, std::vector<int>> tma_tuning = {
      {"sms", {S}}, {"threads", {32, 64, 128, 256}}, {"pipeline_depth", {1, 2, 4, 8}}, {"blocks_per_sm", {1, 2}}};
  // reg_l2hint accepts only 16-B vectors: its other widths are dropped as not fitting.
  const std::map<std::string, std::vector<int>> reg_tuning = {
      {"sms", {S}}, {"threads", {256, 512, 1024}}, {"blocks_per_sm", {1, 2}}, {"vec_bytes", {4, 8, 16}},
      {"unroll", {1, 4, 8}}};
  Sweep tune{"tune", {"push", "pull"}, {"one_way"}, 1 * GiB,
             {{"tma_bulk", {16 * KiB}, tma_tuning},
              {"tma_tile", {16 * KiB}, tma_tuning},
              {"reg", {64 * KiB}, reg_tuning},
              {"reg_l2hint", {64 * KiB}, reg_tuning}},
             true};
  // Both ends issue at once (source pushes, destination pulls): does mixing write and read
  // traffic on one link direction move more than either alone?
  Sweep mixed{"mixed", {"mixed"}, {"one_way", "bidir"}, 1 * GiB,
              {{"ce", {16 * MiB, 256 * MiB, 1 * GiB}, {}},
               {"tma_bulk", {2 * KiB, 16 * KiB, 64 * KiB}, {{"sms", {S}}}},
               {"tma_tile", {16 * KiB}, {{"sms", {S}}}},
               {"reg", {64 * KiB}, {{"sms", {S}}}}}};
  // Fan-out, fan-in and all-pairs traffic over 2, 4 and 8 GPUs (counts above the machine's
  // are skipped with the reason).
  Sweep scale{"scale", {"push", "pull"}, {"one_to_all", "all_to_one", "all_pairs"}, 1 * GiB,
              {{"ce", {1 * GiB}, {}},
               {"tma_bulk", {16 * KiB}, {{"sms", {S}}}},
               {"reg", {64 * KiB}, {{"sms", {S}}}}},
              false,
              {2, 4, 8}};
  Sweep local{"local", {"push"}, {"local"}, 1 * GiB,
              {{"ce", {1 * GiB}, {}},
               {"tma_bulk", {16 * KiB}, {{"sms", {S}}}},
               {"reg", {64 * KiB}, {{"sms", {S}}}}}};
  Sweep smoke{"smoke", {"push", "pull"}, {"one_way", "bidir"}, 64 * MiB,
              {{"ce", {64 * KiB, 16 * MiB}, {}},
               {"tma_bulk", {2 * KiB, 16 * KiB}, {{"sms", {8, S}}}},
               {"tma_tile", {2 * KiB, 16 * KiB}, {{"sms", {8, S}}}},
               {"reg", {4 * KiB, 64 * KiB}, {{"sms", {8, S}}}}}};
  Sweep custom{"custom", {"push"}, {"one_way"}, 1 * GiB,
               {{"ce", {16 * KiB}, {}},
                {"tma_bulk", {16 * KiB}, {{"sms", {S}}}},
                {"tma_tile", {16 * KiB}, {{"sms", {S}}}},
                {"reg", {16 * KiB}, {{"sms", {S}}}}}};
  if (name == "default") {
    // A run's default is what its machine can show: the two-GPU figures and the reference
    // points, and on three or more GPUs the node's fan-out, fan-in and all-pairs traffic.
    std::vector<Sweep> v = {fig2, fig3, tune, mixed, local};
    if (gpu_count >= 2)
      for (auto& sw : nvbandwidth_sweeps(g, gpu_count)) v.push_back(sw);
    if (gpu_count >= 3)
      for (auto& sw : node_sweeps(g, sm_sweep)) v.push_back(sw);
    return v;
  }
  if (name == "nvbandwidth") return nvbandwidth_sweeps(g, std::max(1, gpu_count));
  if (name == "node") return node_sweeps(g, sm_sweep);
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

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> v = {"default", "fig2", "fig3",  "tune",        "mixed", "scale",
                                             "node",    "local", "smoke", "nvbandwidth", "custom"};
  return v;
}

// Every combination of `lists` (knob -> values), each as a KnobValues.
std::vector<KnobValues> combinations(const std::vector<std::pair<std::string, std::vector<int>>>& lists) {
  std::vector<KnobValues> out = {{}};
  for (const auto& [name, values] : lists) {
    std::vector<KnobValues> next;
    for (const KnobValues& base : out)
      for (int v : values) {
        KnobValues k = base;
        k[name] = v;
        next.push_back(k);
      }
    out = next;
  }
  return out;
}

void check_options(const GridOptions& o) {
  if (std::find(preset_names().begin(), preset_names().end(), o.preset) == preset_names().end())
    throw ArgError("--preset: unknown preset '" + o.preset + "'");
  // A name list's refusal names its flag.
  auto names = [](const char* flag, const std::string& text, const std::vector<std::string>& known, const char* what) {
    try {
      return parse_name_list(text, known, what);
    } catch (const ArgError& e) {
      throw ArgError(std::string(flag) + "=" + text + ": " + e.what());
    }
  };
  std::vector<std::string> mech_filter;
  if (!o.mechanisms.empty()) mech_filter = names("--mechanisms", o.mechanisms, mechanism_names(), "mechanism");
  if (!o.directions.empty()) names("--directions", o.directions, direction_names(), "direction");
  if (!o.patterns.empty()) names("--patterns", o.patterns, pattern_names(), "pattern");
  // Sizes every mechanism refuses (validate_common's rule), refused before any GPU is looked for.
  if (!o.sizes.empty())
    for (uint64_t m : parse_size_list(o.sizes))
      if (m == 0 || m % 16) throw ArgError("--sizes: " + std::to_string(m) + " B is not a positive multiple of 16 B");
  if (o.total_bytes % 16) throw ArgError("--total: " + std::to_string(o.total_bytes) + " B is not a multiple of 16 B");
  if (o.total_given && o.total_bytes == 0) throw ArgError("--total=0: an operation must move at least 16 B");
  if (!o.gpus.empty()) parse_gpu_pair(o.gpus, "--gpus");
  if (!o.gpu_counts.empty()) {
    std::vector<int> counts;
    try {
      counts = parse_int_list(o.gpu_counts, 0);
    } catch (const ArgError& e) {
      throw ArgError(std::string("--gpu-counts: ") + e.what());
    }
    // The same bound as GPU numbers (--gpus); a count above this machine's is a skipped row.
    for (int k : counts)
      if (k < 2 || k > kGpuNumberLimit)
        throw ArgError("--gpu-counts=" + o.gpu_counts + ": " + std::to_string(k) +
                       " GPUs: a fan pattern needs 2 to " + std::to_string(kGpuNumberLimit) + " GPUs");
  }
  // A knob flag that no selected mechanism has would be silently ignored: refuse it.
  for (const auto& [name, text] : o.knob_lists) {
    if (text.empty()) continue;
    bool used = false;
    std::string flag = name, owners;
    for (const Mechanism* m : mechanisms()) {
      if (!m->has_knob(name)) continue;
      for (const KnobUse& u : m->knobs())
        if (u.knob.name == name) flag = u.knob.flag;
      owners += (owners.empty() ? "" : ", ") + m->name();
      if (mech_filter.empty() || std::find(mech_filter.begin(), mech_filter.end(), m->name()) != mech_filter.end())
        used = true;
    }
    std::vector<int> values;
    try {
      values = parse_int_list(text, 1);
    } catch (const ArgError& e) {
      throw ArgError("--" + flag + ": " + e.what());
    }
    // 0 stands for "the mechanism's default" inside a point: a user's 0 must not become it.
    for (const Knob& k : all_knobs())
      if (k.name == name && !values.empty() && values.front() < 1)
        throw ArgError("--" + flag + "=" + text + ": " + k.help + " must be at least 1");
    if (!used) throw ArgError("--" + flag + " applies to " + owners + ", and none of them is selected");
  }
}

namespace {

using KnobLists = std::vector<std::pair<std::string, std::vector<int>>>;

// A sweep's axes after the flags that override them.
struct SweepAxes {
  std::vector<std::string> directions, patterns;
  uint64_t total = 0;
  std::vector<int> gpu_counts;
};

SweepAxes sweep_axes(const Sweep& sw, const GridOptions& o) {
  SweepAxes a;
  a.directions = o.directions.empty() ? sw.directions : parse_name_list(o.directions, direction_names(), "direction");
  a.patterns = o.patterns.empty() ? sw.patterns : parse_name_list(o.patterns, pattern_names(), "pattern");
  a.total = o.total_bytes ? o.total_bytes : sw.total;
  a.gpu_counts = o.gpu_counts.empty() ? sw.gpu_counts : parse_int_list(o.gpu_counts, 0);
  return a;
}

// The sweep's mechanisms that --mechanisms selects (all without it), then those it names that
// the preset lacks, at 16 KiB.
std::vector<MechGrid> sweep_mechanisms(const Sweep& sw, const std::vector<std::string>& filter) {
  auto selected = [&](const std::string& m) {
    return filter.empty() || std::find(filter.begin(), filter.end(), m) != filter.end();
  };
  std::vector<MechGrid> grids;
  for (const MechGrid& mg : sw.mechs)
    if (selected(mg.mech)) grids.push_back(mg);
  for (const std::string& m : filter)
    if (std::none_of(sw.mechs.begin(), sw.mechs.end(), [&](const MechGrid& x) { return x.mech == m; }))
      grids.push_back({m, {16 * KiB}, {}});
  return grids;
}

// Each of the mechanism's knobs with its values: the flag's, else the preset's, else {0}
// (the mechanism's default).
KnobLists knob_lists(const Mechanism& mech, const MechGrid& mg, const GridOptions& o, const GpuInfo& g) {
  KnobLists lists;
  for (const KnobUse& u : mech.knobs()) {
    const auto ov = o.knob_lists.find(u.knob.name);
    const int all = u.knob.name == knobs::sms.name ? g.sm_count : 0;
    if (ov != o.knob_lists.end() && !ov->second.empty()) lists.push_back({u.knob.name, parse_int_list(ov->second, all)});
    else if (auto pv = mg.knobs.find(u.knob.name); pv != mg.knobs.end()) lists.push_back({u.knob.name, pv->second});
    else lists.push_back({u.knob.name, {0}});
  }
  return lists;
}

// Knob values the user asked for must run or be refused, never dropped or shrunk. Sizes
// alone do not pin the preset's knobs: `--sizes 16:1G` over the default presets keeps
// fitting (or, in a tuning grid, leaving out) the preset knob values that a size cannot
// hold, while a size no configuration of the mechanism can carry is still refused.
// The SM count is left out too: it sets no block's shared memory, so it decides no fit.
bool knobs_pinned(const Mechanism& mech, const GridOptions& o) {
  for (const KnobUse& u : mech.knobs())
    if (auto ov = o.knob_lists.find(u.knob.name);
        u.knob.name != knobs::sms.name && ov != o.knob_lists.end() && !ov->second.empty())
      return true;
  return false;
}

// The points so far, each once, and how many combinations were dropped as not fitting.
struct Points {
  std::vector<TransferPoint> list;
  std::set<std::string> seen;
  int dropped = 0;
  int run_gpus = 0;  // GPUs of the run (0: not known): every_pair sweeps span them
};

// One mechanism's points in one sweep: every direction, pattern, GPU count (fan patterns
// only), size and knob combination, resolved against `g`.
void expand(const Sweep& sw, const SweepAxes& ax, const MechGrid& mg, const GridOptions& o, const GpuInfo& g,
            std::pair<int, int> gpus, Points* pts) {
  if (sw.every_pair && o.gpus.empty() && pts->run_gpus >= 2) {
    Sweep one = sw;
    one.every_pair = 0;
    for (int a = 0; a < pts->run_gpus; ++a)
      for (int b = sw.every_pair == 2 ? a + 1 : 0; b < pts->run_gpus; ++b)
        if (a != b) expand(one, ax, mg, o, g, {a, b}, pts);
    return;
  }
  const Mechanism& mech = mechanism(mg.mech);
  const auto sizes = o.sizes.empty() ? mg.sizes : parse_size_list(o.sizes);
  const auto knob_sets = combinations(knob_lists(mech, mg, o, g));
  const bool pinned = knobs_pinned(mech, o);
  for (const auto& dir : ax.directions)
    for (const auto& pat : ax.patterns)
      for (int ngpus : is_fan(pat) ? ax.gpu_counts : std::vector<int>{0})
        for (uint64_t size : sizes)
          for (const KnobValues& kv : knob_sets) {
            if (ngpus == 1) continue;  // a fan over one GPU moves nothing
            TransferPoint p;
            p.sweep = sw.name;
            p.mechanism = mg.mech;
            p.direction = dir;
            p.pattern = pat;
            p.gpu_a = gpus.first;
            p.gpu_b = gpus.second;
            p.gpu_count = ngpus;
            p.message_bytes = size;
            p.total_bytes = ax.total;
            p.max_ops = o.max_ops;
            p.knobs = kv;
            p.auto_fit = !sw.drop_unfit && !pinned;
            try {
              mech.resolve(p, g);
            } catch (const ArgError&) {
              if (sw.drop_unfit && !pinned) {
                ++pts->dropped;
                continue;
              }
              throw;
            }
            if (pts->seen.insert(p.name()).second) pts->list.push_back(p);
          }
}

}  // namespace

std::vector<TransferPoint> build_grid(const GridOptions& o, const GpuInfo& g, int gpu_count, int* dropped) {
  check_options(o);
  std::vector<Sweep> sweeps = preset(o.preset, g, gpu_count);
  std::vector<std::string> mech_filter;
  if (!o.mechanisms.empty()) mech_filter = parse_name_list(o.mechanisms, mechanism_names(), "mechanism");
  std::pair<int, int> gpus{0, 1};
  if (!o.gpus.empty()) {
    gpus = parse_gpu_pair(o.gpus, "--gpus");
    if (gpu_count > 0) check_gpu_pair(gpus, gpu_count, "--gpus");
  }
  Points pts;
  pts.run_gpus = gpu_count;
  for (const Sweep& sw : sweeps) {
    const SweepAxes ax = sweep_axes(sw, o);
    for (const MechGrid& mg : sweep_mechanisms(sw, mech_filter)) expand(sw, ax, mg, o, g, gpus, &pts);
  }
  if (dropped) *dropped = pts.dropped;
  if (pts.list.empty()) throw ArgError("the selected grid has no points");
  return pts.list;
}

}  // namespace pk::transfer
