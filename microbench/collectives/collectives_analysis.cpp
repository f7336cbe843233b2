#include "microbench/collectives/collectives_analysis.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <stdexcept>
#include <sstream>
#include <tuple>

#include "microbench/harness/row_reader.h"
#include "microbench/harness/format.h"
#ifdef PKBENCH_HAVE_STUDY_COLUMNS
#include "microbench/collectives/coll_schema.h"
#endif

namespace pk::coll {

// How pkbench_compare matches and measures this study's points (study_measure.h; registered
// by COMPARE on the study's line of sweeps/CMakeLists.txt).
StudyMeasure collectives_measure() {
  return {.key = {"collective", "impl", "dtype", "bytes", "gpus", "launch_mode"},
          .group = {"collective", "impl"},
          .metric = "time_us_median",
          .unit = "us",
          .higher_better = false,
          .lo = "time_us_p10",
          .hi = "time_us_p90",
          .range_ref = "time_us_median"};
}

const char* coll_method_text(CollMethod m) {
  return m == CollMethod::nccltests
             ? "nccl-tests method (host timer around back-to-back launches or graph replays, averaged over ranks)"
             : "device-time view (gated CUDA events, median with p10..p90)";
}

namespace {

struct CollRow {
  std::string collective, impl, family, dtype, launch_mode, config, nccl_algo, status, error, knobs, peer_mode, tuning;
  int64_t bytes = 0, gpus = 0;
  int sms = 0, threads = 0;  // the grid our kernel launched; 0: a baseline's own, or not recorded
  double t = 0, p10 = 0, p90 = 0, busbw = 0, t_nt = 0, busbw_nt = 0;
  CrossCheck check;
  size_t line = 0;
  bool nccl() const { return family.rfind("nccl", 0) == 0; }
  bool ours() const { return family == "pk"; }
  std::string name() const { return config.empty() || config.rfind("NCCL", 0) == 0 ? impl : impl + " " + config; }
  Timing timing(CollMethod m) const { return m == CollMethod::device_time ? Timing{t, p10, p90} : Timing{t_nt, 0, 0}; }
  double bus(CollMethod m) const { return m == CollMethod::device_time ? busbw : busbw_nt; }
  double lo_or_t() const { return p10 > 0 ? p10 : t; }
  double hi_or_t() const { return p90 > 0 ? p90 : t; }
};

// The columns and what each fills. config: NCCL's own (nccl_config) where it wrote one. The
// grid and the cross-check are derived (row_of in read_rows) from the columns read here.
const RowReader<CollRow>& coll_reader() {
  using R = CollRow;
  using T = ColumnType;
  static const RowReader<R> r =
      RowReader<R>()
          .text("collective", &R::collective).text("impl", &R::impl).text("family", &R::family)
          .text("dtype", &R::dtype).integer("bytes", &R::bytes).integer("gpus", &R::gpus)
          .text("launch_mode", &R::launch_mode).text("config", &R::config, false)
          .column({"nccl_config", T::text, false},
                  [](R& row, const CsvTable& t, size_t i, int f) {
                    if (!t.empty(i, f)) row.config = t.text(i, f);
                  })
          .also({"sms", T::integer, false}).also({"threads", T::integer, false}).text("knobs", &R::knobs, false)
          .text("peer_mode", &R::peer_mode, false).text("tuning", &R::tuning, false)
          .number("time_us_median", &R::t).number("time_us_p10", &R::p10).number("time_us_p90", &R::p90)
          .number("busbw_gbps", &R::busbw).text("status", &R::status)
          .number("time_us_nccltests", &R::t_nt, false).number("busbw_gbps_nccltests", &R::busbw_nt, false)
          .text("nccl_algo", &R::nccl_algo, false).also({"ref_tool", T::text, false})
          .also({"ref_time_us", T::number, false}).also({"ref_ratio", T::number, false})
          .text("error", &R::error, false).also({"git_commit", T::text, false}).line(&R::line);
  return r;
}

// Every row (any status); `info` filled when given.
// The header checked against the study's own declaration where this build has it
// (pkbench_coll_problem: the study configured), else against the reader's fields only.
ReadOptions coll_read_options() {
  ReadOptions o;
  o.study = "collectives";
#ifdef PKBENCH_HAVE_STUDY_COLUMNS
  static const StudySchemas own{
      declared_study("collectives", pk::coll::coll_read_columns(), "pk::coll::coll_read_columns() (pkbench_coll_problem)")};
  o.schemas = &own;
#endif
  return o;
}

std::vector<CollRow> read_rows(const std::string& path, CollectivesData* info) {
  const CsvTable t = CsvTable::read(path, coll_reader().fields(), coll_read_options());
  const auto row_of = coll_reader().rows(t);
  const int f_sms = t.field("sms"), f_threads = t.field("threads"), f_config = t.field("config");
  std::vector<CollRow> rows;
  rows.reserve(t.rows());
  for (size_t i = 0; i < t.rows(); ++i) {
    CollRow r = row_of(i);
    // Runs before the knob columns: the grid as config wrote it ("132 blocks x 512 threads").
    if (t.empty(i, f_sms)) pkbench::tuning::detail::parse_grid(std::string(t.text(i, f_config)), &r.sms, &r.threads);
    else r.sms = static_cast<int>(t.integer(i, f_sms)), r.threads = static_cast<int>(t.integer(i, f_threads));
    double ratio = t.number(i, "ref_ratio");
    const double ref = t.number(i, "ref_time_us");
    if (!(ratio > 0) && ref > 0 && r.t_nt > 0) ratio = r.t_nt / ref;
    r.check = cross_check(std::string(t.text(i, "ref_tool")), ref, ratio);
    rows.push_back(r);
  }
  if (info) {
    info->path = path;
    info->machine = t.machine();
    info->rows = rows.size();
    for (const auto& r : rows) {
      info->ok += r.status == "ok";
      info->skipped += r.status == "skipped";
      info->errors += r.status == "error";
      info->has_nccltests |= r.status == "ok" && r.t_nt > 0;
      if (r.status == "skipped") info->skip_reasons.push_back(r.family + ": " + r.error);
    }
    for (size_t i = 0; i < t.rows() && info->git_commit.empty(); ++i) info->git_commit = t.text(i, "git_commit");
  }
  return rows;
}

CollSide side_of(const Best& b, const std::vector<const CollRow*>& rows, CollMethod m) {
  CollSide s;
  if (!b) return s;
  const CollRow& r = *rows[b.fastest->index];
  s.impl = r.impl;
  s.family = r.family;
  s.config = r.config;
  s.nccl_algo = r.nccl_algo;
  s.us = b.fastest->t.median;
  s.busbw = r.bus(m);
  s.tied = static_cast<int>(b.tied.size());
  return s;
}

using PointKey = std::tuple<std::string, std::string, int64_t, std::string, int64_t>;  // coll, dtype, gpus, mode, bytes

}  // namespace

CollectivesData read_collectives_info(const std::string& path) {
  CollectivesData d;
  read_rows(path, &d);
  return d;
}

CollMethod headline_method(const CollectivesData& d) {
  return d.has_nccltests ? CollMethod::nccltests : CollMethod::device_time;
}

std::vector<CollPoint> collective_points(const std::string& path, CollMethod method) {
  const std::vector<CollRow> rows = read_rows(path, nullptr);
  std::vector<PointKey> order;
  std::map<PointKey, std::vector<const CollRow*>> at;
  for (const auto& r : rows) {
    const PointKey k{r.collective, r.dtype, r.gpus, r.launch_mode, r.bytes};
    auto [it, fresh] = at.try_emplace(k);
    if (fresh) order.push_back(k);
    it->second.push_back(&r);
  }
  std::vector<CollPoint> out;
  for (const auto& k : order) {
    const auto& rs = at[k];
    std::vector<Candidate> ours, nccl, nvshmem;
    CollPoint p;
    std::tie(p.collective, p.dtype, p.gpus, p.launch_mode, p.bytes) = k;
    for (size_t i = 0; i < rs.size(); ++i) {
      const CollRow& r = *rs[i];
      if (r.family == "nvshmem") p.nvshmem_status = r.status;
      if (r.status != "ok") continue;
      const Candidate c{r.name(), r.timing(method), r.check, static_cast<int>(i)};
      if (r.ours()) ours.push_back(c);
      else if (r.nccl()) nccl.push_back(c);
      else if (r.family == "nvshmem") nvshmem.push_back(c);
    }
    const PointVerdict v = compare_best(ours, nccl);
    p.ours = side_of(v.ours, rs, method);
    p.nccl = side_of(v.base, rs, method);
    p.nvshmem = side_of(best_of(nvshmem), rs, method);
    p.speedup = v.speedup;
    p.outcome = v.outcome;
    p.check = v.check;
    p.speedup_nvshmem = speedup(p.nvshmem.us, p.ours.us);
    out.push_back(p);
  }
  return out;
}

const CollPoint* find_point(const std::vector<CollPoint>& pts, const std::string& collective, const std::string& dtype,
                            int64_t bytes, const std::string& mode) {
  for (const auto& p : pts)
    if (p.collective == collective && p.dtype == dtype && p.bytes == bytes && p.launch_mode == mode) return &p;
  return nullptr;
}

CollectiveSpeedup best_speedup_over_nccl(const std::string& path, const std::string& collective,
                                         const std::string& dtype) {
  return best_speedup_over_nccl(path, collective, dtype, headline_method(read_collectives_info(path)));
}

CollectiveSpeedup best_speedup_over_nccl(const std::string& path, const std::string& collective,
                                         const std::string& dtype, CollMethod method) {
  CollectiveSpeedup out;
  for (const auto& p : collective_points(path, method))
    if (p.collective == collective && p.dtype == dtype && !p.check.defective() && p.speedup > out.speedup) {
      out.speedup = p.speedup;
      out.bytes = p.bytes;
      out.launch_mode = p.launch_mode;
      out.impl = p.ours.impl;
      out.nccl_impl = p.nccl.impl;
      out.check = p.check;
    }
  return out;
}

std::vector<CollectiveComparison> collective_comparisons(const std::vector<CollPoint>& pts) {
  using Group = std::tuple<std::string, std::string, int64_t, std::string>;
  std::vector<Group> order;
  std::map<Group, CollectiveComparison> by;
  for (const auto& p : pts) {
    if (p.speedup <= 0) continue;
    const Group g{p.collective, p.dtype, p.gpus, p.launch_mode};
    auto [it, fresh] = by.try_emplace(g);
    CollectiveComparison& c = it->second;
    if (fresh) {
      order.push_back(g);
      std::tie(c.collective, c.dtype, c.gpus, c.launch_mode) = g;
    }
    if (c.sizes == 0 || p.speedup > c.best) c.best = p.speedup, c.best_bytes = p.bytes, c.best_impl = p.ours.impl;
    if (c.sizes == 0 || p.speedup < c.worst) c.worst = p.speedup, c.worst_bytes = p.bytes, c.worst_impl = p.ours.impl;
    ++c.sizes;
    c.faster += p.outcome == Outcome::faster;
    c.ties += p.outcome == Outcome::tie;
    c.defective += p.check.defective();
    c.checked += p.check.status() == CheckStatus::checked;
  }
  std::vector<CollectiveComparison> out;
  for (const auto& g : order) out.push_back(by[g]);
  return out;
}

std::vector<CollectiveComparison> collective_comparisons(const std::string& path) {
  return collective_comparisons(collective_points(path, headline_method(read_collectives_info(path))));
}

namespace {

TuningTable collectives_table_columns(const std::string& path) {
  using K = CellKind;
  TuningTable tt;
  tt.name = "collectives";
  tt.doc =
      "Collective implementation per machine, collective, dtype, GPU count, launch mode and power-of-two size "
      "bucket, chosen on the device-time view (gated medians with p10..p90): rows within the fastest's noise are "
      "tied; among them NCCL is preferred, then this suite's implementations by name. speedup_vs_nccl = NCCL's best "
      "/ the chosen implementation under the nccl-tests method (the gated medians where the CSV has no nccl-tests "
      "column), as the report and the summary state it.";
  tt.columns = {{"machine", K::text, "machine key, e.g. h200x2"},
                {"collective", K::text, "all_reduce, all_gather, reduce_scatter, all_to_all, ..."},
                {"dtype", K::text, "element type"},
                {"gpus", K::integer, "GPUs taking part"},
                {"launch_mode", K::text, "eager or graph"},
                {"from_bytes", K::integer, "size bucket start (nccl-tests' size convention)"},
                {"to_bytes", K::integer, "size bucket end (inclusive)"},
                {"candidates", K::integer, "implementations measured in the bucket"},
                {"tied", K::integer, "implementations within the fastest's p10..p90"},
                {"impl", K::text, "chosen implementation"},
                {"family", K::text, "its family (pk, nccl, nccl_sym, ...)"},
                {"config", K::text, "its configuration"},
                {"sms", K::integer, "its grid: blocks, one per SM (empty: NCCL / NVSHMEM pick their own)"},
                {"threads", K::integer, "its threads per block (empty: NCCL / NVSHMEM pick their own)"},
                {"knobs", K::text, "auto (the implementation's own grid) or the swept --coll-sms/--coll-threads values"},
                {"bytes", K::integer, "size of the chosen row"},
                {"time_us", K::number, "chosen median time per collective"},
                {"busbw_gbps", K::number, "chosen bus bandwidth (nccl-tests factors)"},
                {"speedup_vs_nccl", K::number, "NCCL's best / chosen, headline method (0: no NCCL row)"},
                {"nccl_impl", K::text, "NCCL's best implementation in the bucket"},
                {"nccl_time_us", K::number, "its median"},
                {"fastest_impl", K::text, "fastest median in the bucket"},
                {"fastest_time_us", K::number, "its median"},
                {"fastest_spread_pct", K::number, "its p90 - p10 as % of its median"},
                {"runner_up_impl", K::text, "fastest outside the noise band (\"\": none)"},
                {"runner_up_gap_pct", K::number, "runner-up median / fastest median - 1, in %"},
                {"source", K::text, "CSV file and line of the chosen row"}};
  tt.keys = {"machine", "collective", "dtype", "gpus", "launch_mode"};
  tt.from_column = "from_bytes";
  tt.to_column = "to_bytes";
  tt.sources = {path};
  return tt;
}

// The row of one bucket (its ok rows `rs`), the speedup over NCCL under the headline method.
std::vector<Cell> coll_choice(const std::vector<const CollRow*>& rs, CollMethod headline, const Machine& machine,
                              const std::string& path) {
  std::vector<Candidate> family;
  for (size_t i = 0; i < rs.size(); ++i)
    family.push_back({rs[i]->name(), rs[i]->timing(CollMethod::device_time), rs[i]->check, static_cast<int>(i)});
  const Best best = best_of(family);
  const CollRow* fastest = rs[best.fastest->index];
  // Among the tied: NCCL first (nothing to maintain), then ours by name.
  const CollRow* c = nullptr;
  for (const Candidate* t : best.tied) {
    const CollRow* r = rs[t->index];
    if (!c || std::make_tuple(!r->nccl(), r->impl, r->t) < std::make_tuple(!c->nccl(), c->impl, c->t)) c = r;
  }
  const CollRow* runner = nullptr;
  for (const auto& cand : family)
    if (std::find(best.tied.begin(), best.tied.end(), &cand) == best.tied.end() &&
        (!runner || rs[cand.index]->t < runner->t))
      runner = rs[cand.index];
  // NCCL's best in the bucket at the chosen row's size, under the headline method.
  const CollRow* nccl = nullptr;
  for (const CollRow* r : rs)
    if (r->nccl() && r->bytes == c->bytes && r->timing(headline).measured() &&
        (!nccl || r->timing(headline).median < nccl->timing(headline).median))
      nccl = r;
  std::set<std::string> impls;
  for (const CollRow* r : rs) impls.insert(r->impl + " " + r->config);
  const double sp = nccl ? speedup(nccl->timing(headline).median, c->timing(headline).median) : 0;
  const uint64_t lo = pow2_floor(static_cast<uint64_t>(c->bytes));
  return {tuning_machine_key(machine, c->peer_mode, c->gpus),
          c->collective,
          c->dtype,
          c->gpus,
          c->launch_mode,
          static_cast<int64_t>(lo),
          static_cast<int64_t>(2 * lo - 1),
          static_cast<int64_t>(impls.size()),
          static_cast<int64_t>(best.tied.size()),
          c->impl,
          c->family,
          c->config,
          c->sms ? Cell{int64_t{c->sms}} : Cell{},
          c->threads ? Cell{int64_t{c->threads}} : Cell{},
          c->knobs.empty() ? Cell{} : Cell{c->knobs},
          c->bytes,
          c->t,
          c->busbw,
          nccl ? Cell{sp} : Cell{},
          nccl ? Cell{nccl->impl} : Cell{},
          nccl ? Cell{nccl->timing(headline).median} : Cell{},  // the time speedup_vs_nccl uses
          fastest->impl,
          fastest->t,
          100 * (fastest->hi_or_t() - fastest->lo_or_t()) / fastest->t,
          runner ? Cell{runner->impl} : Cell{},
          runner ? Cell{100 * (runner->t / fastest->t - 1)} : Cell{},
          path + ":" + std::to_string(c->line)};
}

}  // namespace

TuningTable collectives_tuning(const std::string& path) {
  CollectivesData info;
  const std::vector<CollRow> all = read_rows(path, &info);
  const CollMethod headline = headline_method(info);
  TuningTable tt = collectives_table_columns(path);
  std::map<std::tuple<std::string, std::string, int64_t, std::string, uint64_t>, std::vector<const CollRow*>> groups;
  for (const auto& r : all)  // `tuned` rows answered from a table: never a candidate of one
    if (r.status == "ok" && r.family != "tuned")
      groups[{r.collective, r.dtype, r.gpus, r.launch_mode, pow2_floor(static_cast<uint64_t>(r.bytes))}].push_back(&r);
  for (const auto& [key, rs] : groups) tt.rows.push_back(coll_choice(rs, headline, info.machine, path));
  return tt;
}

std::vector<TunedPoint> tuned_points(const std::string& path) {
  const std::vector<CollRow> rows = read_rows(path, nullptr);
  std::vector<TunedPoint> out;
  auto same_point = [](const CollRow& a, const CollRow& b) {
    return a.collective == b.collective && a.dtype == b.dtype && a.gpus == b.gpus && a.launch_mode == b.launch_mode &&
           a.bytes == b.bytes;
  };
  for (const auto& t : rows) {
    if (t.family != "tuned") continue;
    TunedPoint p;
    p.collective = t.collective;
    p.dtype = t.dtype;
    p.launch_mode = t.launch_mode;
    p.gpus = t.gpus;
    p.bytes = t.bytes;
    p.answer = t.status == "ok" ? t.tuning : t.status + ": " + t.error;
    if (t.status == "ok") p.tuned_us = t.t;
    // "impl=NAME sms=..." (coll_tuned.cu): the implementation whose own default is compared.
    std::string answered;
    if (t.tuning.rfind("impl=", 0) == 0) answered = t.tuning.substr(5, t.tuning.find(' ') - 5);
    for (const auto& r : rows) {
      if (r.family == "tuned" || r.status != "ok" || !same_point(r, t)) continue;
      p.consider(r.t, r.name());
      if (r.impl == answered && (r.knobs.empty() || r.knobs == "auto")) p.default_us = r.t, p.default_config = r.name();
    }
    out.push_back(p);
  }
  return out;
}

namespace {
const char* const kCollOrigin = "issue 8 (collectives); results/h200x2/collectives/summary.md";
}  // namespace

const TargetSpecs& collectives_target_specs() {
  // bf16, eager and graph, against the best NCCL configuration at each size.
  static const TargetSpecs v({
      {"collectives.ar_small", kCollOrigin, "all-reduce speedup over the best NCCL at every size <= 64 KiB (lowest)",
       ">=", 1.3, "x"},
      {"collectives.ar_mid", kCollOrigin, "all-reduce speedup over the best NCCL from 256 KiB to 16 MiB (lowest)", ">=",
       1.5, "x"},
      {"collectives.ar_large", kCollOrigin, "all-reduce speedup over the best NCCL at >= 256 MiB (lowest)", ">=", 1.05,
       "x"},
      {"collectives.ar_busbw", kCollOrigin, "all-reduce bus bandwidth at 1 GiB (lowest launch mode)", ">=", 345,
       " GB/s"},
      {"collectives.ag_all", kCollOrigin, "all-gather speedup over the best NCCL at every size (lowest)", ">=", 1.0,
       "x"},
      {"collectives.rs_all", kCollOrigin, "reduce-scatter speedup over the best NCCL at every size (lowest)", ">=",
       1.0, "x"},
      {"collectives.a2a_all", kCollOrigin, "all-to-all speedup over the best NCCL at every size (lowest)", ">=", 1.0,
       "x"},
      {"collectives.ag_rs_busbw", kCollOrigin,
       "all-gather and reduce-scatter bus bandwidth at 1 GiB (lowest collective and launch mode)", ">=", 345, " GB/s"},
      {"collectives.tensor_dim", kCollOrigin,
       "tensor-dimension all-gather and reduce-scatter (cols) speedup over NCCL then reshape at 64 MiB (lowest)", ">=",
       1.5, "x"},
  });
  return v;
}

namespace {

// The points of one target: bf16, the named collectives, sizes in [lo, hi].
std::vector<const CollPoint*> coll_points(const std::vector<CollPoint>& pts, std::initializer_list<const char*> colls,
                                          int64_t lo, int64_t hi) {
  std::vector<const CollPoint*> v;
  for (const auto& p : pts)
    for (const char* c : colls)
      if (p.collective == c && p.dtype == "bf16" && p.bytes >= lo && p.bytes <= hi) v.push_back(&p);
  return v;
}

std::string point_text(const CollPoint& p) { return size_text(static_cast<uint64_t>(p.bytes)) + " " + p.launch_mode; }

// A speedup target over every point: the lowest speedup, the points below the target, the
// weakest cross-check among the baselines it rests on.
TargetResult coll_speedup_target(const std::string& id, const std::vector<const CollPoint*>& pts, CollMethod m) {
  const TargetSpecs& spec = collectives_target_specs();
  const TargetSpec& target = spec(id);
  const std::string baseline = std::string("best NCCL configuration per size and mode, ") +
                               (m == CollMethod::nccltests ? "nccl-tests method" : "device-time view");
  const CollPoint* low = nullptr;
  std::string below, missing;
  std::vector<CrossCheck> checks;
  bool multi = false;
  for (const CollPoint* p : pts) {
    multi |= p->collective != pts.front()->collective;
    if (p->speedup <= 0) {
      missing += (missing.empty() ? "" : ", ") + point_text(*p);
      continue;
    }
    checks.push_back(p->check);
    if (!target.holds(judged_speedup(p->outcome, p->speedup)))
      below += (below.empty() ? "" : ", ") + (multi ? p->collective + " " : "") + point_text(*p) + " " +
               num(p->speedup, 2) + " (" + outcome_text(p->outcome) + ")";
    if (!low || judged_speedup(p->outcome, p->speedup) < judged_speedup(low->outcome, low->speedup)) low = p;
  }
  if (!low) return unmeasured_target(spec(id), "no point with both this suite's and NCCL's rows", baseline);
  TargetResult t = judge_target(spec(id),
                                num(low->speedup, 2) + "x (" + low->collective + " " + point_text(*low) + ", " +
                                    low->ours.impl + " against " + low->nccl.impl + ") over " +
                                    std::to_string(checks.size()) + " points",
                                judged_speedup(low->outcome, low->speedup), baseline, weakest(checks),
                                low->outcome == Outcome::tie ? low->speedup : 0);
  if (!below.empty()) t.note += "; below: " + below;
  if (!missing.empty()) t.note += "; no comparison at " + missing;
  return t;
}

TargetResult coll_busbw_target(const std::string& id, const std::vector<const CollPoint*>& pts) {
  const TargetSpecs& spec = collectives_target_specs();
  const CollPoint* low = nullptr;
  std::string all;
  for (const CollPoint* p : pts) {
    if (!p->ours.measured()) continue;
    all += (all.empty() ? "" : ", ") + p->collective + " " + p->launch_mode + " " + num(p->ours.busbw, 1) + " (" +
           p->ours.impl + "; best NCCL " + (p->nccl.measured() ? num(p->nccl.busbw, 1) : "-") + ")";
    if (!low || p->ours.busbw < low->ours.busbw) low = p;
  }
  if (!low) return unmeasured_target(spec(id), "no 1 GiB row of this suite");
  return judge_target(spec(id), num(low->ours.busbw, 1) + " GB/s (" + all + ")", low->ours.busbw);
}

}  // namespace

std::vector<TargetResult> collectives_targets(const std::vector<CollPoint>& pts, CollMethod m) {
  constexpr int64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB, any = INT64_MAX;
  return {coll_speedup_target("collectives.ar_small", coll_points(pts, {"all_reduce"}, 0, 64 * KiB), m),
          coll_speedup_target("collectives.ar_mid", coll_points(pts, {"all_reduce"}, 256 * KiB, 16 * MiB), m),
          coll_speedup_target("collectives.ar_large", coll_points(pts, {"all_reduce"}, 256 * MiB, any), m),
          coll_busbw_target("collectives.ar_busbw", coll_points(pts, {"all_reduce"}, GiB, GiB)),
          coll_speedup_target("collectives.ag_all", coll_points(pts, {"all_gather"}, 0, any), m),
          coll_speedup_target("collectives.rs_all", coll_points(pts, {"reduce_scatter"}, 0, any), m),
          coll_speedup_target("collectives.a2a_all", coll_points(pts, {"all_to_all"}, 0, any), m),
          coll_busbw_target("collectives.ag_rs_busbw", coll_points(pts, {"all_gather", "reduce_scatter"}, GiB, GiB)),
          coll_speedup_target("collectives.tensor_dim",
                              coll_points(pts, {"all_gather_cols", "reduce_scatter_cols"}, 64 * MiB, 64 * MiB), m)};
}

namespace {

void counts_section(std::ostream& os, const std::vector<std::string>& paths) {
  os << "## Rows\n\n| file | rows | ok | skipped | error | skip reasons |\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& path : paths) {
    const CollectivesData d = read_collectives_info(path);
    std::map<std::string, int> reasons;
    for (const auto& r : d.skip_reasons) ++reasons[r.substr(0, 100)];
    std::string rs;
    for (const auto& [r, n] : reasons) rs += (rs.empty() ? "" : "; ") + std::to_string(n) + " x " + r;
    os << "| `" << path << "` | " << d.rows << " | " << d.ok << " | " << d.skipped << " | " << d.errors << " | "
       << (rs.empty() ? "-" : rs) << " |\n";
  }
}

void points_section(std::ostream& os, const std::vector<CollPoint>& head, const std::vector<CollPoint>& dev,
                    CollMethod method) {
  os << "## Every point\n\nSpeedup = best NCCL / best ours, both timed by the same method. Headline: the "
     << coll_method_text(method) << ". Beside it the " << coll_method_text(CollMethod::device_time)
     << ". \"outcome\": faster, slower, or within noise (bands overlap; without bands, medians within "
     << num(100 * kTieFraction, 0) << " %). NCCL's cross-check: its figure against its own tool's in the same call "
     << "(within " << num(100 * kCrossCheckTolerance, 0) << " % = checked); a baseline off its tool gets no speedup "
     << "claimed.\n\n"
     << "| collective | dtype | size | mode | best NCCL (config; algorithm) | NCCL us | cross-check | best ours | ours us "
        "| speedup | outcome | device-time view: NCCL / ours us, speedup | NVSHMEM us (ours over it) | ours busbw "
        "GB/s |\n|---|---|---:|---|---|---:|---|---|---:|---:|---|---|---|---:|\n";
  for (size_t i = 0; i < head.size(); ++i) {
    const CollPoint& p = head[i];
    const CollPoint* d = find_point(dev, p.collective, p.dtype, p.bytes, p.launch_mode);
    const std::string nv = p.nvshmem.measured() ? us_cell(p.nvshmem.us) + " (" + x_cell(p.speedup_nvshmem) + ")"
                           : p.nvshmem_status.empty() ? "-"
                                                      : p.nvshmem_status;
    os << "| " << p.collective << " | " << p.dtype << " | " << size_text(static_cast<uint64_t>(p.bytes)) << " | "
       << p.launch_mode << " | "
       << (p.nccl.measured() ? p.nccl.impl + " (" + p.nccl.config + "; " +
                                   (p.nccl.nccl_algo.empty() ? "not logged" : p.nccl.nccl_algo) + ")"
                             : "-")
       << " | " << us_cell(p.nccl.us) << " | " << (p.nccl.measured() ? p.check.text() : "-") << " | "
       << (p.ours.measured() ? p.ours.impl : "-") << " | " << us_cell(p.ours.us) << " | "
       << (p.check.defective() ? "(" + x_cell(p.speedup) + ", not claimed)" : x_cell(p.speedup)) << " | "
       << outcome_text(p.outcome) << " | "
       << (d ? us_cell(d->nccl.us) + " / " + us_cell(d->ours.us) + ", " + x_cell(d->speedup) : "-") << " | " << nv
       << " | " << (p.ours.measured() ? num(p.ours.busbw, 1) : "-") << " |\n";
  }
}

void targets_section(std::ostream& os, const std::vector<CollPoint>& head, CollMethod method) {
  const auto targets = collectives_targets(head, method);
  os << "## Targets\n\nbf16, eager and graph, " << coll_method_text(method)
     << ".\n\n" << targets_table_markdown(targets);
  os << "\n" << target_count_text(targets) << ".\n";
}

// Every point whose best NCCL row is more than the tolerance off its own tool: a measurement
// defect, no speedup claimed over it until fixed.
void defects_section(std::ostream& os, const std::vector<CollPoint>& head) {
  int checked = 0, unchecked = 0;
  std::string off;
  for (const auto& p : head) {
    if (!p.nccl.measured()) continue;
    switch (p.check.status()) {
      case CheckStatus::checked: ++checked; break;
      case CheckStatus::not_checked: ++unchecked; break;
      case CheckStatus::off:
        off += "| " + p.collective + " | " + p.dtype + " | " + size_text(static_cast<uint64_t>(p.bytes)) + " | " +
               p.launch_mode + " | " + p.nccl.impl + " " + p.nccl.config + " | " + p.check.text() + " |\n";
        break;
    }
  }
  os << "\n## NCCL against its own tool\n\nBest NCCL row per point: " << checked << " checked (within "
     << num(100 * kCrossCheckTolerance, 0) << " % of the tool's figure in the same call), " << unchecked
     << " not checked, " << std::count(off.begin(), off.end(), '\n') << " off their tool.";
  if (!off.empty())
    os << " These are measurement defects: no speedup over them is claimed.\n\n| collective | dtype | size | mode | "
          "NCCL row | cross-check |\n|---|---|---:|---|---|---|\n"
       << off;
  else
    os << "\n";
}

// Figure 6's design overheads: each ablation variant's time against the one-way direct
// two-shot, same point, device-time view (the gated medians the figures plot).
void ablation_section(std::ostream& os, const std::string& path) {
  static const char* const kBase = "two_shot_push";
  static const char* const kVariants[] = {"two_shot_push_handshake", "two_shot_push_staged",
                                          "two_shot_push_handshake_staged"};
  // A point is its GPU count, size and mode; only rows at the implementation's own grid (knobs
  // auto or absent) compare, one per point (a knob sweep would otherwise overwrite them).
  using Point = std::tuple<int64_t, int64_t, std::string>;  // gpus, bytes, mode
  std::map<std::pair<std::string, Point>, double> us;
  std::vector<Point> order;
  std::set<int64_t> gpu_counts;
  for (const CollRow& r : read_rows(path, nullptr)) {
    if (r.status != "ok" || r.collective != "all_reduce" || r.dtype != "bf16") continue;
    if (!r.knobs.empty() && r.knobs != "auto") continue;
    const Point pt{r.gpus, r.bytes, r.launch_mode};
    if (!us.emplace(std::make_pair(r.impl, pt), r.t).second) continue;
    if (r.impl == kBase) {
      order.push_back(pt);
      gpu_counts.insert(std::get<0>(pt));
    }
  }
  if (order.empty()) return;
  const bool by_gpus = gpu_counts.size() > 1;  // the GPU count shown only where it varies
  os << "\n## Ablation (all-reduce bf16, device-time view)\n\nEach variant's median over " << kBase
     << "'s at the same " << (by_gpus ? "GPU count, " : "") << "size and mode.\n\n|" << (by_gpus ? " GPUs |" : "")
     << " size | mode | " << kBase << " us |";
  for (const char* v : kVariants) os << " " << v << " |";
  os << "\n|" << (by_gpus ? "---:|" : "") << "---:|---|---:|";
  for (size_t i = 0; i < std::size(kVariants); ++i) os << "---:|";
  os << "\n";
  for (const Point& pt : order) {
    const auto& [g, b, mode] = pt;
    const double base = us[{kBase, pt}];
    os << "|" << (by_gpus ? " " + std::to_string(g) + " |" : "") << " " << size_text(static_cast<uint64_t>(b)) << " | "
       << mode << " | " << us_cell(base) << " |";
    for (const char* v : kVariants) {
      auto it = us.find({v, pt});
      os << " " << (it == us.end() ? "-" : us_cell(it->second) + " (" + x_cell(it->second / base) + ")") << " |";
    }
    os << "\n";
  }
}

// `tuned` rows against the same run's best measured row and the answered implementation's
// default grid, device-time view (the view the tuning table chooses on).
void tuned_section(std::ostream& os, const std::string& path) {
  std::vector<TunedLine> lines;
  for (const auto& p : tuned_points(path))
    lines.push_back({{p.collective, p.dtype, size_text(static_cast<uint64_t>(p.bytes)), p.launch_mode}, p});
  pk::tuned_section(os,
                            "Device-time view. best = the fastest other row at the point (any implementation, any "
                            "knobs); default = the answered implementation at its own grid (knobs auto).",
                            {"collective", "dtype", "size", "mode"}, lines);
}

}  // namespace

std::string collectives_summary_markdown(const std::vector<std::string>& paths) {
  if (paths.empty()) throw std::invalid_argument("collectives_summary_markdown: no CSV");
  const CollectivesData d = read_collectives_info(paths[0]);
  const CollMethod method = headline_method(d);
  const auto head = collective_points(paths[0], method);
  const auto dev = collective_points(paths[0], CollMethod::device_time);
  std::ostringstream os;
  os << "# Collectives summary\n\nGenerated by `pkbench_collectives_summary` from `" << paths[0] << "` ("
     << d.machine.describe() << ", commit " << (d.git_commit.empty() ? "-" : d.git_commit) << ", " << d.ok
     << " ok rows). Best ours = the fastest row of family pk; best NCCL = the fastest NCCL configuration (family "
        "nccl*); NVSHMEM is shown beside and never counted as NCCL.";
  if (method == CollMethod::device_time)
    os << " This CSV has no nccl-tests-method column: the headline is the device-time view.";
  os << "\n\n";
  counts_section(os, paths);
  os << "\n";
  targets_section(os, head, method);
  defects_section(os, head);
  os << "\n";
  points_section(os, head, dev, method);
  ablation_section(os, paths[0]);
  tuned_section(os, paths[0]);
  return os.str();
}

}  // namespace pk::coll
