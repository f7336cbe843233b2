#include "collectives_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "format.h"

namespace pk::sweeps {

const std::vector<Field>& collectives_fields() {
  using T = ColumnType;
  static const std::vector<Field> f = {{"collective"},
                                       {"impl"},
                                       {"family"},
                                       {"dtype"},
                                       {"bytes", T::integer},
                                       {"gpus", T::integer},
                                       {"launch_mode"},
                                       {"config", T::text, false},
                                       {"time_us_median", T::number},
                                       {"time_us_p10", T::number},
                                       {"time_us_p90", T::number},
                                       {"busbw_gbps", T::number},
                                       {"status"}};
  return f;
}

namespace {

struct CollRow {
  std::string collective, impl, family, dtype, launch_mode, config;
  int64_t bytes = 0, gpus = 0;
  double t = 0, p10 = 0, p90 = 0, busbw = 0;
  size_t line = 0;
  bool nccl() const { return family.rfind("nccl", 0) == 0; }
  double lo() const { return p10 > 0 ? p10 : t; }
  double hi() const { return p90 > 0 ? p90 : t; }
};

bool simpler(const CollRow& a, const CollRow& b) {
  if (a.nccl() != b.nccl()) return a.nccl();
  if (a.impl != b.impl) return a.impl < b.impl;
  return a.t < b.t;
}

}  // namespace

namespace {

std::vector<CollRow> read_rows(const std::string& path, Machine* machine) {
  ReadOptions o;
  o.study = "collectives";
  const CsvTable t = CsvTable::read(path, collectives_fields(), o);
  if (machine) *machine = t.machine();
  std::vector<CollRow> rows;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    CollRow r;
    r.collective = t.text(i, "collective");
    r.impl = t.text(i, "impl");
    r.family = t.text(i, "family");
    r.dtype = t.text(i, "dtype");
    r.launch_mode = t.text(i, "launch_mode");
    r.config = t.text(i, "config");
    r.bytes = t.integer(i, "bytes");
    r.gpus = t.integer(i, "gpus");
    r.t = t.number(i, "time_us_median");
    r.p10 = t.number(i, "time_us_p10");
    r.p90 = t.number(i, "time_us_p90");
    r.busbw = t.number(i, "busbw_gbps");
    r.line = t.line_of(i);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

CollectiveSpeedup best_speedup_over_nccl(const std::string& path, const std::string& collective,
                                         const std::string& dtype) {
  const std::vector<CollRow> rows = read_rows(path, nullptr);
  std::map<std::tuple<int64_t, int64_t, std::string>, std::pair<const CollRow*, const CollRow*>> best;  // pk, nccl
  for (const auto& r : rows) {
    if (r.collective != collective || r.dtype != dtype) continue;
    auto& b = best[{r.bytes, r.gpus, r.launch_mode}];
    const CollRow*& slot = r.nccl() ? b.second : b.first;
    if ((r.nccl() || r.family == "pk") && (!slot || r.t < slot->t)) slot = &r;
  }
  CollectiveSpeedup out;
  for (const auto& [k, b] : best)
    if (b.first && b.second && b.second->t / b.first->t > out.speedup) {
      out.speedup = b.second->t / b.first->t;
      out.bytes = b.first->bytes;
      out.launch_mode = b.first->launch_mode;
      out.impl = b.first->impl;
      out.nccl_impl = b.second->impl;
    }
  return out;
}

std::vector<CollectiveComparison> collective_comparisons(const std::string& path) {
  const std::vector<CollRow> rows = read_rows(path, nullptr);
  using Group = std::tuple<std::string, std::string, int64_t, std::string>;  // collective, dtype, gpus, mode
  std::vector<Group> order;
  std::map<Group, std::map<int64_t, std::pair<const CollRow*, const CollRow*>>> best;  // bytes -> pk, nccl
  for (const auto& r : rows) {
    if (!r.nccl() && r.family != "pk") continue;
    const Group g{r.collective, r.dtype, r.gpus, r.launch_mode};
    if (!best.count(g)) order.push_back(g);
    auto& b = best[g][r.bytes];
    const CollRow*& slot = r.nccl() ? b.second : b.first;
    if (!slot || r.t < slot->t) slot = &r;
  }
  std::vector<CollectiveComparison> out;
  for (const auto& g : order) {
    CollectiveComparison c;
    std::tie(c.collective, c.dtype, c.gpus, c.launch_mode) = g;
    for (const auto& [bytes, b] : best[g]) {
      if (!b.first || !b.second) continue;
      const double s = b.second->t / b.first->t;
      if (c.sizes == 0 || s > c.best) c.best = s, c.best_bytes = bytes, c.best_impl = b.first->impl;
      if (c.sizes == 0 || s < c.worst) c.worst = s, c.worst_bytes = bytes, c.worst_impl = b.first->impl;
      ++c.sizes;
      c.faster += s > 1;
    }
    if (c.sizes) out.push_back(c);
  }
  return out;
}

TuningTable collectives_tuning(const std::string& path) {
  Machine machine;
  const std::vector<CollRow> rows = read_rows(path, &machine);
  using K = CellKind;
  TuningTable tt;
  tt.name = "collectives";
  tt.doc =
      "Collective implementation per machine, collective, dtype, GPU count, launch mode and power-of-two size "
      "bucket. Rows whose p10..p90 overlaps the fastest's are tied; among them NCCL is preferred, then this suite's "
      "implementations by name. speedup_vs_nccl = NCCL's best median / the chosen median.";
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
                {"bytes", K::integer, "size of the chosen row"},
                {"time_us", K::number, "chosen median time per collective"},
                {"busbw_gbps", K::number, "chosen bus bandwidth (nccl-tests factors)"},
                {"speedup_vs_nccl", K::number, "NCCL's best median / chosen median (0: no NCCL row)"},
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
  std::map<std::tuple<std::string, std::string, int64_t, std::string, uint64_t>, std::vector<const CollRow*>> groups;
  for (const auto& r : rows)
    groups[{r.collective, r.dtype, r.gpus, r.launch_mode, pow2_floor(static_cast<uint64_t>(r.bytes))}].push_back(&r);
  const std::string machine_name = machine.key();
  for (const auto& [key, rs] : groups) {
    const CollRow* fastest = *std::min_element(rs.begin(), rs.end(), [](auto a, auto b) { return a->t < b->t; });
    std::vector<const CollRow*> tied;
    const CollRow* runner = nullptr;
    const CollRow* nccl = nullptr;
    std::set<std::string> impls;
    for (const CollRow* r : rs) {
      impls.insert(r->impl + " " + r->config);
      if (r->lo() <= fastest->hi()) tied.push_back(r);
      else if (!runner || r->t < runner->t) runner = r;
      if (r->nccl() && (!nccl || r->t < nccl->t)) nccl = r;
    }
    const CollRow* c = *std::min_element(tied.begin(), tied.end(), [](auto a, auto b) { return simpler(*a, *b); });
    const uint64_t lo = pow2_floor(static_cast<uint64_t>(c->bytes));
    std::vector<Cell> row = {machine_name,
                             c->collective,
                             c->dtype,
                             c->gpus,
                             c->launch_mode,
                             static_cast<int64_t>(lo),
                             static_cast<int64_t>(2 * lo - 1),
                             static_cast<int64_t>(impls.size()),
                             static_cast<int64_t>(tied.size()),
                             c->impl,
                             c->family,
                             c->config,
                             c->bytes,
                             c->t,
                             c->busbw,
                             nccl ? Cell{nccl->t / c->t} : Cell{},
                             nccl ? Cell{nccl->impl} : Cell{},
                             nccl ? Cell{nccl->t} : Cell{},
                             fastest->impl,
                             fastest->t,
                             100 * (fastest->hi() - fastest->lo()) / fastest->t,
                             runner ? Cell{runner->impl} : Cell{},
                             runner ? Cell{100 * (runner->t / fastest->t - 1)} : Cell{},
                             path + ":" + std::to_string(c->line)};
    tt.rows.push_back(std::move(row));
  }
  return tt;
}

}  // namespace pk::sweeps
