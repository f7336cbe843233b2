#include "microbench/ep/ep_tuning.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "microbench/harness/tidy_csv.h"

namespace pk::ep {

std::vector<EpTuningRow> tuning_rows(const EpData& d, bool allow_virtual) {
  if (d.virtual_ranks && !allow_virtual)
    throw std::runtime_error(d.path + ": rows of virtual ranks (HBM, not NVLink) are not tuning input; --allow-virtual writes "
                                      "a table marked as theirs");
  std::string machine = d.machine.key();
  std::vector<EpTuningRow> out;
  std::map<std::tuple<int, int, int, int, std::string, int>, bool> done;
  for (const EpRow& r : d.rows) {
    if (!r.ok() || r.op != "dispatch_combine") continue;
    if (d.virtual_ranks) machine = d.machine.key() + "-virtual" + std::to_string(r.ranks);
    const auto key = std::make_tuple(r.hidden, r.experts, r.topk, r.ranks, r.routing, r.tokens);
    if (done[key]) continue;
    done[key] = true;
    // The fastest implementation at its best; then its fewest SMs within 90 % of that best.
    const EpRow* best = nullptr;
    for (const EpRow& q : d.rows)
      if (q.ok() && q.op == r.op && q.hidden == r.hidden && q.experts == r.experts && q.topk == r.topk && q.ranks == r.ranks &&
          q.routing == r.routing && q.tokens == r.tokens && (!best || q.total_us < best->total_us))
        best = &q;
    const EpRow* pick = best;
    for (const EpRow& q : d.rows)
      if (q.ok() && q.op == r.op && q.impl == best->impl && q.hidden == r.hidden && q.experts == r.experts && q.topk == r.topk &&
          q.ranks == r.ranks && q.routing == r.routing && q.tokens == r.tokens && q.sms > 0 &&
          q.total_us <= best->total_us / kSweepFraction && q.sms < pick->sms)
        pick = &q;
    out.push_back({machine, r.hidden, r.experts, r.topk, r.ranks, r.tokens, r.routing, pick->impl, pick->sms, pick->total_us,
                   best->total_us});
  }
  return out;
}

const std::vector<std::string>& tuning_columns() {
  static const std::vector<std::string> c = {"machine", "hidden", "experts", "topk", "ranks", "tokens", "routing",
                                             "impl",    "sms",    "total_us", "best_us"};
  return c;
}

void write_tuning_csv(const std::string& path, const std::vector<EpTuningRow>& rows) {
  TidyCsv csv(path, tuning_columns());
  for (const EpTuningRow& r : rows)
    csv.append({{"machine", r.machine},
                {"hidden", std::to_string(r.hidden)},
                {"experts", std::to_string(r.experts)},
                {"topk", std::to_string(r.topk)},
                {"ranks", std::to_string(r.ranks)},
                {"tokens", std::to_string(r.tokens)},
                {"routing", r.routing},
                {"impl", r.impl},
                {"sms", std::to_string(r.sms)},
                {"total_us", fmt_num(r.total_us)},
                {"best_us", fmt_num(r.best_us)}});
  csv.flush();
}

std::vector<EpTuningRow> read_tuning_csv(const std::string& path) {
  using C = ColumnType;
  std::vector<Field> f;
  for (const std::string& c : tuning_columns())
    f.push_back({c, c == "machine" || c == "routing" || c == "impl" ? C::text : c == "total_us" || c == "best_us" ? C::number : C::integer});
  ReadOptions o;
  o.one_machine = false;
  const CsvTable t = CsvTable::read(path, f, o);
  std::vector<EpTuningRow> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    auto k = [&](const char* c) { return static_cast<int>(t.integer(i, c)); };
    out.push_back({std::string(t.text(i, "machine")), k("hidden"), k("experts"), k("topk"), k("ranks"), k("tokens"),
                   std::string(t.text(i, "routing")), std::string(t.text(i, "impl")), k("sms"), t.number(i, "total_us"),
                   t.number(i, "best_us")});
  }
  return out;
}

EpChoice EpTuner::choose_ep(int tokens, int hidden, int topk, int ranks, const std::string& routing) const {
  std::vector<const EpTuningRow*> rows;
  for (const EpTuningRow& r : rows_)
    if (r.hidden == hidden && r.topk == topk && r.ranks == ranks && r.routing == routing) rows.push_back(&r);
  const std::string shape = "H=" + std::to_string(hidden) + " TopK=" + std::to_string(topk) + " ranks=" + std::to_string(ranks) +
                            " " + routing;
  if (rows.empty()) return {"", 0, "refused", "no measured row of " + shape};
  std::sort(rows.begin(), rows.end(), [](const EpTuningRow* a, const EpTuningRow* b) { return a->tokens < b->tokens; });
  auto choice = [&](const EpTuningRow* r, const std::string& basis, const std::string& from) {
    return EpChoice{r->impl, r->sms, basis, from};
  };
  for (const EpTuningRow* r : rows)
    if (r->tokens == tokens) return choice(r, "measured", "T=" + std::to_string(tokens) + " of " + shape);
  if (tokens < rows.front()->tokens || tokens > rows.back()->tokens)
    return {"", 0, "refused",
            "T=" + std::to_string(tokens) + " outside the measured " + std::to_string(rows.front()->tokens) + ".." +
                std::to_string(rows.back()->tokens) + " of " + shape};
  const auto hi = std::find_if(rows.begin(), rows.end(), [&](const EpTuningRow* r) { return r->tokens > tokens; });
  const EpTuningRow* above = *hi;
  const EpTuningRow* below = *(hi - 1);
  const double db = std::log2(double(tokens) / below->tokens), da = std::log2(double(above->tokens) / tokens);
  const EpTuningRow* pick = db < da ? below : da < db ? above : (below->sms <= above->sms ? below : above);
  return choice(pick, "interpolated",
                "T=" + std::to_string(below->tokens) + " and " + std::to_string(above->tokens) + " of " + shape + " (nearer on log2: " +
                    std::to_string(pick->tokens) + ")");
}

}  // namespace pk::ep
