// pkbench_collectives: device-initiated collectives (kernels/collectives/) against NCCL
// (ordinary and symmetric-window buffers) and NVSHMEM's on-stream collectives, at every
// size, in back-to-back and CUDA-graph launch modes, one tidy CSV row per (collective,
// implementation, size, dtype, mode). Run alone (one process drives every GPU) or under
// mpirun (one process per GPU, the way nccl-tests and NVSHMEM's perftests are run; NVSHMEM
// runs only so).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/study.h"
#include "microbench/collectives/coll_harness.h"
#include "microbench/collectives/coll_nccl.h"
#include "microbench/collectives/coll_order.h"
#include "microbench/collectives/coll_plan.h"
#include "pkbench/tuning.h"

namespace pk::coll {

// What --help says the binary measures.
constexpr const char* kStudyDescription =
    "Device-initiated collectives against NCCL (plain and symmetric windows) and NVSHMEM's "
    "on-stream collectives, every size, back-to-back and CUDA-graph launches";

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  size_t a = 0;
  while (a <= s.size()) {
    const size_t b = s.find(',', a);
    const std::string t = s.substr(a, b == std::string::npos ? std::string::npos : b - a);
    if (!t.empty()) v.push_back(t);
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return v;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// What an implementation needs of the GPU (harness kernels fill and check every buffer, so
// every point needs this build's device code).
std::vector<pk::Feature> needs_of(const Impl& i) {
  std::vector<pk::Feature> f = {pk::Feature::device_code};
  if (i.uses_tma()) f.push_back(pk::Feature::tma);
  if (i.family() == "multicast") f.push_back(pk::Feature::multicast);
  return f;
}

bool is_nccl(const Impl& i) { return i.baseline() && i.family().rfind("nccl", 0) == 0; }

// The flags as written (parsed into StudyConfig by parse_flags, after CLI11). The lists a
// preset declares (coll_plan.h) are empty unless given: the preset fills them per round.
struct Flags {
  std::string preset = "full";
  CollLists lists;
  std::string impls = "all";
  std::string counts, tcounts;
  std::string coll_sms = "auto", coll_threads = "auto", tuning_table;
};

// What is run and at which sizes: collectives, implementations, dtypes, sizes and counts, modes, shapes.
void add_problem_options(CLI::App& app, StudyConfig& cfg, Flags& f, const std::string& impl_names) {
  pk::add_preset_option(app, f.preset, coll_presets());
  app.add_option("--collectives", f.lists.collectives, "comma list or all: " + joined(collective_names()));
  app.add_option("--impls", f.impls,
                 "comma list or all:" + impl_names + " multimem (with --allow-multicast); nvshmem runs under mpirun only")
      ->capture_default_str();
  app.add_option("--dtypes", f.lists.dtypes, "bf16, fp32");
  app.add_option("--sizes", f.lists.sizes, "sizes in nccl-tests' sense for the plain collectives (e.g. 4K:1G)")
      ->check(pk::size_list_validator());
  app.add_option("--tensor-sizes", f.lists.tensor_sizes, "sizes of the tensor-dimension collectives (*_cols, all_to_all_4d)")
      ->check(pk::size_list_validator());
  app.add_option("--counts", f.counts,
                 "instead of --sizes: per-rank element counts (all-reduce: the vector; all-gather/reduce-scatter: "
                 "one rank's block; all-to-all: one peer's block), e.g. odd counts for tests");
  app.add_option("--tensor-counts", f.tcounts, "instead of --tensor-sizes: rows per rank (*_cols) or S per rank (4-D)");
  app.add_option("--modes", f.lists.modes, "eager (back-to-back launches), graph (CUDA-graph replay)");
  app.add_option("--tensor-cols", cfg.dims.cols, "columns per rank of the *_cols layouts")->capture_default_str();
  app.add_option("--a2a-shape", f.lists.a2a, "B,H,D of all_to_all_4d's (B, S, H, D) input (default: the preset's; 1,32,128 "
                                              "but for the ulysses presets)");
}

// How it is timed: samples, bounds, the nccl-tests method, the seed.
void add_timing_options(CLI::App& app, StudyConfig& cfg) {
  // A numeric option within [lo, hi], its default shown in --help.
  auto bounded = [&app](const std::string& flag, auto& value, const std::string& help, auto lo, auto hi) {
    app.add_option(flag, value, help)->check(CLI::Range(lo, hi))->capture_default_str();
  };
  bounded("--samples", cfg.timing.samples, "timed samples per point", 1, 1000);
  bounded("--warmup-ms", cfg.timing.warmup_ms, "warm-up per point", 0.0, 1e5);
  bounded("--timeout-ms", cfg.timing.timeout_ms, "bound of every spin-wait", 1.0, 1e6);
  bounded("--gap-ms", cfg.timing.gap_ms, "idle time between points", 0.0, 1e5);
  bounded("--ops-per-sample", cfg.ops_per_sample,
          "most collectives per timed sample, the same for every implementation (fewer for large sizes; graph "
          "mode captures them into one graph)",
          1, 128);
  bounded("--nccltests-iters", cfg.nccltests_iters, "nccl-tests' -n for the nccl-tests-style time", 1, 100000);
  bounded("--nccltests-graph-launches", cfg.nccltests_graph_launches,
          "nccl-tests' -G in graph mode: launches of the captured graph of --nccltests-iters collectives, timed "
          "together (column nccltests_graph_launches; ref_check.sh passes the same -G to the tool)",
          1, 1000);
  bounded("--nccltests-repeats", cfg.nccltests_repeats,
          "runs of the whole nccl-tests method per point; time_us_nccltests is their median (one run of a "
          "launch-bound size moves by ~10 % from run to run, as nccl-tests' own figure does; column "
          "nccltests_repeats)",
          1, 1000);
  app.add_flag("--nccltests-shift", cfg.nccltests_shift,
               "NCCL rows of the nccl-tests method move their buffers every iteration as nccl-tests' startColl does "
               "(for the cross-check with nccl-tests: our kernels keep one buffer; column nccltests_shift)");
  app.add_option("--seed", cfg.seed, "input pattern seed")->check(CLI::NonNegativeNumber)->capture_default_str();
}

// Which variants: NCCL configurations, multicast, our launch knobs, a tuning table.
void add_variant_options(CLI::App& app, StudyConfig& cfg, Flags& f) {
  std::vector<std::string> names;
  for (const auto& c : nccl_configs()) names.push_back(c.name);
  app.add_option("--nccl-configs", f.lists.nccl_configs,
                 "NCCL baselines, one communicator each, comma list or all: " + joined(names) +
                     " (PROTO/ALGO: NCCL_PROTO and NCCL_ALGO forced; where NCCL has them)");
  app.add_flag("--allow-multicast", cfg.allow_multicast,
               "register the NVSwitch multicast variants (refused when NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1 or "
               "TORCH_SYMM_MEM_DISABLE_MULTICAST=1 is set, or the device lacks multicast)");
  app.add_option("--coll-sms", f.coll_sms,
                 "our kernels' grid, swept: comma list of blocks (one per SM, all resident at once) and/or auto (each "
                 "implementation's own choice by size; the runs before this knob); column sms")
      ->capture_default_str();
  app.add_option("--coll-threads", f.coll_threads,
                 "our kernels' threads per block, swept: comma list of multiples of 32 and/or auto (each kernel's "
                 "default); values a kernel cannot launch are not registered for it; column threads")
      ->capture_default_str();
  app.add_option("--tuning-table", f.tuning_table,
                 "a collectives tuning table (pkbench_tune's collectives_tuning.json): adds the `tuned` implementation at "
                 "every point, configured from the table through pkbench/tuning.h as a user's program would be (column "
                 "tuning says what it answered). The table must be of this machine; a table of virtual ranks only for a "
                 "run on the same virtual ranks (pkbench_tune --allow-virtual)");
}

// NCCL baselines of configurations not asked for are not registered; naming one in --impls
// is refused (strict: the full round; a partial round of a GPU-count sweep leaves it out).
ImplList keep_nccl_configs(const ImplList& all, const StudyConfig& cfg, const Flags& f, const std::string& cfgs,
                           bool strict) {
  std::set<std::string> keep;
  for (const auto& c : cfg.nccl_configs) keep.insert(c.impl_name());
  ImplList v;
  for (auto& i : all)
    if (i->nccl_config().empty() || keep.count(i->name())) v.push_back(i);
    else if (strict && f.impls != "all" && ("," + f.impls + ",").find("," + i->name() + ",") != std::string::npos)
      throw pk::ArgError("--impls=" + i->name() + ": its NCCL configuration (" + i->nccl_config() +
                         ") is not in --nccl-configs=" + cfgs);
  return v;
}

// A name listed twice would plan every point of it twice: refused, naming the flag.
void refuse_repeats(const char* flag, const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(n).second) throw pk::ArgError(std::string(flag) + ": '" + n + "' is listed twice");
}

// Collectives, dtypes, modes, sizes, counts and shapes into cfg; ArgError naming the flag.
void parse_problem_flags(CLI::App& app, StudyConfig& cfg, const CollLists& l, const Flags& f) {
  cfg.collectives = l.collectives == "all" ? collective_names() : split(l.collectives);
  refuse_repeats("--collectives", cfg.collectives);
  refuse_repeats("--dtypes", split(l.dtypes));
  refuse_repeats("--modes", split(l.modes));
  for (const auto& c : cfg.collectives) layout_of(c);
  for (const auto& d : split(l.dtypes)) cfg.dtypes.push_back(parse_dtype(d));
  for (const auto& m : split(l.modes)) {
    if (m == "eager") cfg.modes.push_back(LaunchMode::eager);
    else if (m == "graph") cfg.modes.push_back(LaunchMode::graph);
    else throw pk::ArgError("--modes: unknown launch mode '" + m + "' (eager, graph)");
  }
  if (cfg.dtypes.empty() || cfg.modes.empty() || cfg.collectives.empty())
    throw pk::ArgError("--dtypes/--modes/--collectives: empty list");
  cfg.sizes = pk::parse_size_list(l.sizes);
  cfg.tensor_sizes = pk::parse_size_list(l.tensor_sizes);
  if (!f.counts.empty()) cfg.counts = pk::parse_size_list(f.counts);
  if (!f.tcounts.empty()) cfg.tensor_counts = pk::parse_size_list(f.tcounts);
  // Whatever the GPU count, a collective moves at least one element: refused before the
  // GPU is looked for.
  for (auto [flag, list] : {std::pair{"--sizes", &cfg.sizes}, {"--tensor-sizes", &cfg.tensor_sizes},
                            {"--counts", &cfg.counts}, {"--tensor-counts", &cfg.tensor_counts}})
    for (uint64_t v : *list)
      if (v == 0) throw pk::ArgError(std::string(flag) + ": 0: a collective needs at least one element per rank");
  if (cfg.dims.cols == 0) throw pk::ArgError("--tensor-cols=0: the *_cols layouts need at least one column per rank");
  cfg.sizes_given = app.count("--sizes") > 0;
  cfg.tensor_sizes_given = app.count("--tensor-sizes") > 0;
  // A size given that is no whole number of elements splits on no GPU count: refused now, before
  // the GPU is looked for (the split over the ranks is checked once their count is known).
  for (auto [flag, list, given] : {std::tuple{"--sizes", &cfg.sizes, cfg.sizes_given},
                                   {"--tensor-sizes", &cfg.tensor_sizes, cfg.tensor_sizes_given}})
    if (given)
      for (DType t : cfg.dtypes)
        for (uint64_t v : *list)
          if (v % dtype_bytes(t) != 0)
            throw pk::ArgError(std::string(flag) + ": " + std::to_string(v) + " B does not split into whole " + dtype_name(t) +
                               " elements (" + std::to_string(dtype_bytes(t)) + " B each)");
  const auto shape = split(l.a2a);
  if (shape.size() != 3) throw pk::ArgError("--a2a-shape=" + l.a2a + ": expected B,H,D");
  uint64_t* dims[3] = {&cfg.dims.batch, &cfg.dims.heads, &cfg.dims.head_dim};
  for (int k = 0; k < 3; ++k) {
    const auto& d = shape[k];
    if (d.find_first_not_of("0123456789") != std::string::npos || d.size() > 9 || std::stoull(d) == 0)
      throw pk::ArgError("--a2a-shape=" + l.a2a + ": B, H and D are positive integers");
    *dims[k] = std::stoull(d);
  }
}

// The implementations --impls names, in the order it names them; a name not registered in
// this run is refused, saying why where the reason is known (strict), or left out (a partial
// round of a GPU-count sweep, whose preset narrows the NCCL configurations).
ImplList select_impls(const ImplList& all, const std::string& impls, bool strict = true) {
  if (impls == "all") return all;
  refuse_repeats("--impls", split(impls));
  if (!strict) {
    ImplList keep;
    for (const auto& want : split(impls))
      for (auto& i : all)
        if (i->name() == want) keep.push_back(i);
    return keep;
  }
  std::set<std::string> known;
  for (auto& i : all) known.insert(i->name());
  ImplList keep;
  for (const auto& want : split(impls)) {
    // Named in the help, but not registered in this run: say why rather than "unknown".
    bool multicast_name = false;
    for (auto& i : multicast_impls()) multicast_name |= i->name() == want;
    if (!known.count(want) && multicast_name)
      throw pk::ArgError("--impls=" + want +
                         ": the NVSwitch multicast variant is refused by policy unless --allow-multicast is given "
                         "(multicast can put a shared host's GPUs out of service)");
    if (!known.count(want) && want == "nvshmem" && nvshmem_impls().empty())
      throw pk::ArgError("--impls=nvshmem: this build has no NVSHMEM (the nvidia-nvshmem-cu13 wheel or "
                         "PKBENCH_NVSHMEM_ROOT was not found when it was configured)");
    if (!known.count(want)) throw pk::ArgError("--impls: unknown implementation '" + want + "'");
    for (auto& i : all)
      if (i->name() == want) keep.push_back(i);
  }
  if (keep.empty()) throw pk::ArgError("--impls: an empty list");
  return keep;
}

// The knob pairs; every value must launch for at least one selected implementation of ours.
std::vector<LaunchKnobs> parse_knobs(const Flags& f, const ImplList& all) {
  const std::vector<int> sms_list = parse_knob_list(Knob::sms, f.coll_sms);
  const std::vector<int> threads_list = parse_knob_list(Knob::threads, f.coll_threads);
  const std::vector<LaunchKnobs> knobs = knob_grid(sms_list, threads_list);
  for (auto [k, list] : {std::pair{Knob::sms, &sms_list}, {Knob::threads, &threads_list}})
    for (int v : *list) {
      if (v == 0) continue;
      std::string why;
      bool taken = false;
      for (const auto& kn : knobs)
        if ((k == Knob::sms ? kn.sms : kn.threads) == v)
          for (auto& i : all) {
            if (i->family() != "pk") continue;
            const std::string r = i->knob_refusal(kn);
            taken |= r.empty();
            if (!r.empty() && why.empty()) why = i->name() + ": " + r;
          }
      if (!taken)
        throw pk::ArgError(std::string(knob_flag(k)) + "=" + std::to_string(v) +
                           ": no selected implementation of ours launches with it" +
                           (why.empty() ? std::string(" (none selected)") : " (" + why + ")"));
    }
  return knobs;
}

// The table's form and schema now; its machine once the GPUs are known.
void check_tuning_table(const std::string& path) {
  try {
    const pkbench::tuning::Table t = pkbench::tuning::Tuner::read_json_file(path);
    pkbench::tuning::Tuner::check_schema(t);
    if (t.name != "collectives") throw pk::ArgError("a " + t.name + " table, not the collectives' (collectives_tuning.json)");
  } catch (const std::exception& e) {
    throw pk::ArgError("--tuning-table=" + path + ": " + e.what());
  }
}

// Baselines first, then ours once per knob pair their kernels launch with (auto: the
// implementation itself): the order of the committed runs, so a re-run's rows stay
// comparable with theirs.
ImplList point_order(const ImplList& all, const std::vector<LaunchKnobs>& knobs, pk::StudyMain& study, bool quiet) {
  ImplList ordered;
  for (auto& i : all)
    if (i->baseline()) ordered.push_back(i);
  for (auto& i : all) {
    if (i->baseline()) continue;
    if (i->family() != "pk") {
      ordered.push_back(i);
      continue;
    }
    std::string why;
    for (const auto& k : knobs) {
      const std::string r = i->knob_refusal(k);
      if (r.empty()) ordered.push_back(k.is_auto() ? i : i->with_knobs(k));
      else if (why.empty()) why = r;
    }
    if (!why.empty() && !quiet)
      study.note("pkbench_collectives: " + i->name() + " is not run at every knob pair asked for (" + why + ")");
  }
  return ordered;
}

// Every point on n ranks: (collective, dtype, size or count, mode, implementation).
std::vector<PointSpec> plan_points(const StudyConfig& cfg, const ImplList& ordered, int n) {
  std::vector<PointSpec> points;
  auto add = [&](const Problem& p) {
    for (LaunchMode m : cfg.modes)
      for (auto& i : ordered)
        if (i->supports(p.layout) && i->applies(p)) points.push_back({p, m, i});
  };
  for (const auto& c : cfg.collectives) {
    const bool tensor = collective_named(c).tensor();
    const auto& list = tensor ? cfg.tensor_sizes : cfg.sizes;
    const bool given = tensor ? cfg.tensor_sizes_given : cfg.sizes_given;
    const auto& counts_list = tensor ? cfg.tensor_counts : cfg.counts;
    for (DType t : cfg.dtypes) {
      if (!counts_list.empty()) {
        for (uint64_t cnt : counts_list) add(make_problem_count(c, t, cnt, n, cfg.dims));
        continue;
      }
      std::set<uint64_t> seen;
      for (uint64_t bytes : list) {
        if (!given) {  // default lists and partial rounds: round down to a valid size, as nccl-tests does
          const uint64_t unit = size_unit(c, t, n, cfg.dims);
          bytes = bytes / unit * unit;
          if (bytes == 0 || !seen.insert(bytes).second) continue;
        }
        add(make_problem(c, t, bytes, n, cfg.dims));
      }
    }
  }
  return points;
}

// The points in their run order: every point that initialises NVSHMEM (coll_order.h) after all
// the others, each group in plan order.
std::vector<PointSpec> nvshmem_points_last(const std::vector<PointSpec>& points) {
  std::vector<std::string> families;
  for (const auto& ps : points) families.push_back(ps.impl->underlying().family());
  std::vector<PointSpec> ordered;
  for (size_t i : nvshmem_last(families)) ordered.push_back(points[i]);
  return ordered;
}

// One round of a GPU-count sweep (or the whole run): the GPUs it runs on, its configuration
// (the preset's lists, its partial ones on fewer GPUs than the run's, under the flags') and
// its implementations in point order.
struct Round {
  int gpus = 0;
  bool partial = false;
  StudyConfig cfg;
  ImplList ordered;
  std::vector<LaunchKnobs> knobs;
};

// `registered`: every implementation of this build (and multicast where allowed); knobs from
// the full round. ArgError naming the flag. NVSHMEM starts once per process, at the run's
// GPU count: a partial round has no NVSHMEM rows.
Round make_round(CLI::App& app, const StudyConfig& base, const Flags& f, const ImplList& registered,
                 const std::vector<LaunchKnobs>* knobs, pk::StudyMain& study, int k, int n) {
  Round r;
  r.gpus = k;
  r.partial = k < n;
  r.cfg = base;
  const CollLists l = round_lists(coll_preset(f.preset), r.partial, f.lists);
  r.cfg.nccl_configs = parse_nccl_configs(l.nccl_configs);
  ImplList all = keep_nccl_configs(registered, r.cfg, f, l.nccl_configs, !r.partial);
  parse_problem_flags(app, r.cfg, l, f);
  // The sizes given are the run's: on fewer GPUs a size that does not split over them (64 KiB
  // of all-gather on 3) is rounded down to one that does, as nccl-tests does; each row
  // records the bytes it moved.
  if (r.partial) r.cfg.sizes_given = r.cfg.tensor_sizes_given = false;
  // A tensor collective whose heads do not split over this round's GPUs (32 heads on 3) sits
  // the round out, said once; a run left with no collective is refused.
  auto& colls = r.cfg.collectives;
  for (auto it = colls.begin(); it != colls.end();) {
    const std::string why = collective_named(*it).dims_refusal(k, r.cfg.dims);
    if (why.empty()) { ++it; continue; }
    if (colls.size() == 1) throw pk::ArgError(why);
    study.note("pkbench_collectives: " + *it + " is not run on " + std::to_string(k) + " GPUs (" + why + ")");
    it = colls.erase(it);
  }
  all = select_impls(all, f.impls, !r.partial);
  if (r.partial)
    all.erase(std::remove_if(all.begin(), all.end(), [](const auto& i) { return initialises_nvshmem(i->family()); }),
              all.end());
  r.knobs = knobs ? *knobs : parse_knobs(f, all);
  r.ordered = point_order(all, r.knobs, study, r.partial);
  return r;
}

// The rounds of a run of n GPUs (--gpu-counts; one round of n without it).
std::vector<Round> make_rounds(CLI::App& app, const StudyConfig& base, const Flags& f, const ImplList& registered,
                               pk::StudyMain& study, int n) {
  std::vector<Round> rounds;
  const Round full = make_round(app, base, f, registered, nullptr, study, n, n);
  for (int k : study.gpu_counts(n))
    rounds.push_back(k == n ? full : make_round(app, base, f, registered, &full.knobs, study, k, n));
  return rounds;
}

// --list's estimate of one point's wall time (harness/study.h: planned_point_ms): its
// collective at a nominal rate (about 150 GB/s of algorithm bandwidth, what NCCL reaches on
// NVLink 4 at large sizes, or a 10 us launch where that is more), timed as the point is:
// calibration and samples of ops_per_sample collectives, the nccl-tests method's runs.
double planned_ms(const PointSpec& ps, const StudyConfig& cfg) {
  const double op_ms = std::max(0.010, static_cast<double>(ps.problem.bytes) / 150e9 * 1e3);
  const int C = ops_per_sample(ps.problem.bytes, cfg.ops_per_sample);
  const int launches = ps.mode == LaunchMode::graph ? cfg.nccltests_graph_launches : 1;
  return pk::planned_point_ms(cfg.timing, C * op_ms) +
         cfg.nccltests_repeats * (cfg.nccltests_iters * launches + 1) * op_ms;
}

std::vector<pk::ListedPoint> listed(const std::vector<PointSpec>& points, const StudyConfig& cfg, const pk::GpuInfo* g) {
  std::vector<pk::ListedPoint> out;
  for (const auto& p : points)
    out.push_back({p.name(), g ? pk::missing_features(needs_of(*p.impl), *g) : "", planned_ms(p, cfg)});
  return out;
}

// `tuned` after the other rows of each point (collective, dtype, size, mode), from the table
// of this machine (or of these virtual ranks on it); ArgError for another.
std::vector<PointSpec> with_tuned(const std::vector<PointSpec>& points, pk::PeerGroup& group, const std::string& table,
                                  const ImplList& registry) {
  pk::Row meta = pk::metadata_row(group);
  std::string machine = pkbench::tuning::machine_key(meta["gpu_name"], std::stoi(meta["gpu_count"]));
  if (group.is_virtual()) machine = pkbench::tuning::virtual_machine_key(machine, group.size());
  auto tuner = std::make_shared<pkbench::tuning::Tuner>(machine);
  try {
    tuner->load_json_file(table);
  } catch (const std::exception& e) {
    throw pk::ArgError("--tuning-table=" + table + ": " + e.what());
  }
  std::vector<PointSpec> with;
  for (size_t i = 0; i < points.size(); ++i) {
    with.push_back(points[i]);
    const PointSpec& a = points[i];
    const bool last = i + 1 == points.size() || points[i + 1].problem.describe() != a.problem.describe() ||
                      points[i + 1].mode != a.mode;
    if (last) with.push_back({a.problem, a.mode, tuned_impl(*tuner, table, a.problem, a.mode, registry)});
  }
  return with;
}

// The context with buffers for the largest point of each kind: ours (symmetric, the
// PeerGroup's), NCCL's (built when a point wants NCCL). NVSHMEM is not started here (NvshmemLate).
// Setup failures are fatal.
std::unique_ptr<Context> make_context(pk::StudyMain& study, pk::PeerGroup& g, const StudyConfig& cfg,
                                      const std::vector<PointSpec>& points, bool want_nccl) {
  uint64_t in_b = 0, out_b = 0, scratch_b = 0;
  NcclSizes nz;
  for (const auto& ps : points) {
    const Problem& p = ps.problem;
    const uint64_t e = p.elem_bytes();
    const Impl& runs = ps.impl->underlying();
    if (initialises_nvshmem(runs.family())) continue;  // its own symmetric heap
    if (runs.baseline()) {
      nz.add(p);
    } else {
      in_b = std::max(in_b, p.in_elems * e);
      out_b = std::max(out_b, p.out_elems * e);
      scratch_b = std::max(scratch_b, ps.impl->scratch_bytes(p));
    }
  }
  std::unique_ptr<Context> ctx;
  try {
    ctx = std::make_unique<Context>(g, cfg, in_b, out_b, scratch_b);
    if (want_nccl && g.library_skip_reason("NCCL").empty()) ctx->nccl = make_nccl_state(*ctx, nz, cfg.nccl_configs);
  } catch (const std::exception& e) {
    study.fatal(std::string("setting up the collectives: ") + e.what());
  }
  if (want_nccl && !g.library_skip_reason("NCCL").empty())
    study.note("pkbench_collectives: " + g.library_skip_reason("NCCL"));
  else if (want_nccl && !ctx->nccl) study.note("pkbench_collectives: built without NCCL: the NCCL baselines are skipped");
  return ctx;
}

// NVSHMEM started right before the first point that runs it (the points run NVSHMEM's last:
// nvshmem_points_last), not with the context: initialised, NVSHMEM keeps its host side in the
// process until the end, and every row host-timed in its presence measured ~200 us per
// operation (coll_order.h). Its symmetric heap is sized from the NVSHMEM points, as the
// context's buffers are from the others; a failure becomes those rows' skip reason. Every rank
// runs the same points in the same order, so every rank starts it at the same point
// (initialisation is collective).
class NvshmemLate {
 public:
  NvshmemLate(pk::StudyMain& study, Context& ctx, const std::vector<PointSpec>& points) : study_(study), ctx_(ctx) {
    for (const auto& ps : points)
      if (initialises_nvshmem(ps.impl->underlying().family())) {
        sizes_.add(ps.problem);
        ++points_;
      }
  }
  void before(const PointSpec& ps) {
    if (started_ || !initialises_nvshmem(ps.impl->underlying().family())) return;
    started_ = true;
    pk::PeerGroup& g = ctx_.group;
    // After the GPU check (study.start) and the group: one PE per process and GPU.
    const std::string why =
        nvshmem_process_reason(g.comm().is_mpi(), g.processes(), static_cast<int>(g.local_gpus().size()));
    if (!why.empty()) {
      study_.note("pkbench_collectives: " + why + ": the NVSHMEM rows are skipped");
      return;
    }
    study_.note("pkbench_collectives: starting NVSHMEM for its " + std::to_string(points_) +
                " point(s), run after every other point");
    ctx_.nvshmem = make_nvshmem_state(ctx_, sizes_);  // failures become the rows' skip reason
  }

 private:
  pk::StudyMain& study_;
  Context& ctx_;
  NcclSizes sizes_;
  int points_ = 0;
  bool started_ = false;
};

// The rounds of a GPU-count sweep are all made at once (the full round first: the partial
// ones take its knobs, and its notes come first), before the first point is listed or run.
// On the GPUs every round's points are planned on every rank before any round runs
// (plan_run), so that a refusal (a tuning table of another machine, a count the preset cannot
// split) ends every rank alike before anything is measured.
class CollectivesPlan : public pk::StudyPlan {
 public:
  explicit CollectivesPlan(pk::StudyMain& study) : study_(study) {
    base_.timing.samples = 10;
    // The implementation names come from the registered lists (one name may serve several
    // collectives, e.g. ll).
    for (auto& v : {our_impls(), baseline_impls()})
      for (auto& i : v) registry_.push_back(i);
    std::string impl_names;
    for (auto& i : registry_)
      if (impl_names.find(" " + i->name() + ",") == std::string::npos) impl_names += " " + i->name() + ",";
    CLI::App& app = study.cli().app();
    add_problem_options(app, base_, flags_, impl_names);
    add_timing_options(app, base_);
    add_variant_options(app, base_, flags_);
    study.enable_gpu_counts();  // the scaling figure: every GPU count 2..N of one run (--gpu-counts=all)
  }

  void check_flags() override {
    // Every implementation, multicast where allowed: also the names a tuning table answers.
    if (base_.allow_multicast)
      for (auto& i : multicast_impls()) registry_.push_back(i);
    try {
      // Every list checked now, before any GPU is looked for (a partial round's too).
      study_.gpu_counts(pk::kMaxGpus);
      const Round full = make_round(app(), base_, flags_, registry_, nullptr, study_, 2, 2);
      make_round(app(), base_, flags_, registry_, &full.knobs, study_, 2, 3);
      if (!flags_.tuning_table.empty()) check_tuning_table(flags_.tuning_table);
      if (base_.allow_multicast) {  // the environment rules need no GPU: refuse before anything runs
        const std::string why = multicast_refusal(true, 1, [](const char* v) { return std::getenv(v); });
        if (!why.empty()) throw pk::ArgError("--allow-multicast: " + why);
      }
    } catch (const pk::ArgError&) {
      throw;
    } catch (const std::exception& e) {  // whatever a list's parse throws is bad input too
      throw pk::ArgError(e.what());
    }
  }

  // --list without this machine's GPUs (no GPU here, or --arch): the points of a run of
  // --world GPUs (default 2), asked round by round (ascending) for --gpu-counts.
  std::vector<pk::ListedPoint> plan(const pk::GpuInfo& g) override {
    if (rounds_.empty()) {
      const int n = study_.run_gpus();
      study_.note("note: planned for " + std::to_string(n) + " GPUs (--world)");
      rounds_ = make_rounds(app(), base_, flags_, registry_, study_, n);
    }
    const Round& r = rounds_.at(round_index(study_.planned_world()));
    return listed(nvshmem_points_last(plan_points(r.cfg, r.ordered, r.gpus)), r.cfg, &g);
  }

  // The rounds and their points on the run's GPUs (the tuned points in the full round only: a
  // table answers for the run's GPUs).
  void plan_run(pk::PeerGroup& group) override {
    rounds_ = make_rounds(app(), base_, flags_, registry_, study_, group.size());
    for (const Round& r : rounds_) {
      std::vector<PointSpec> points = plan_points(r.cfg, r.ordered, r.gpus);
      if (!flags_.tuning_table.empty() && !r.partial) points = with_tuned(points, group, flags_.tuning_table, registry_);
      round_points_.push_back(nvshmem_points_last(points));  // a tuned point may answer NVSHMEM
    }
  }

  std::vector<pk::ListedPoint> points(pk::PeerGroup& group) override {
    const size_t i = round_index(group.size());
    return listed(round_points_.at(i), rounds_[i].cfg, nullptr);
  }

  void setup(pk::PeerGroup& group, pk::PointResults& results) override {
    const size_t i = round_index(group.size());
    const std::vector<PointSpec>& points = round_points_.at(i);
    bool want_nccl = false;
    for (const auto& ps : points) want_nccl |= is_nccl(ps.impl->underlying());
    ctx_ = make_context(study_, group, rounds_[i].cfg, points, want_nccl);
    runner_ = std::make_unique<Runner>(*ctx_, results);
    nvshmem_ = std::make_unique<NvshmemLate>(study_, *ctx_, points);
    for (const auto& ps : points)
      pk::register_point(ps.name(), 1, [this, ps](benchmark::State& s) {
        nvshmem_->before(ps);
        runner_->run(s, ps);
      });
  }

  std::vector<std::string> columns() const override {
    std::vector<std::string> columns = coll_columns();
    for (const auto& c : pk::metadata_columns()) columns.push_back(c);
    return columns;
  }

  void finish() override {
    nvshmem_.reset();
    runner_.reset();
    ctx_.reset();  // NVSHMEM (nvshmem_finalize), NCCL communicators and symmetric memory go before MPI_Finalize
  }

 private:
  pk::StudyMain& study_;
  StudyConfig base_;
  Flags flags_;
  ImplList registry_;  // every implementation of this build (and multicast where allowed)
  std::vector<Round> rounds_;                      // one per GPU count, ascending
  std::vector<std::vector<PointSpec>> round_points_;  // on the GPUs: each round's points in run order
  std::unique_ptr<Context> ctx_;  // the running round's (a Round's cfg outlives it)
  std::unique_ptr<Runner> runner_;
  std::unique_ptr<NvshmemLate> nvshmem_;

  CLI::App& app() { return study_.cli().app(); }
  // The round of a count of k GPUs (the counts of a sweep are distinct).
  size_t round_index(int k) const {
    for (size_t i = 0; i < rounds_.size(); ++i)
      if (rounds_[i].gpus == k) return i;
    throw std::logic_error("pkbench_collectives: no round of " + std::to_string(k) + " GPUs");
  }
};

}  // namespace
}  // namespace pk::coll

PK_STUDY_MAIN(pk::coll::CollectivesPlan, "pkbench_collectives", pk::coll::kStudyDescription, "collectives.csv")
