#include "microbench/harness/point_cost.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/stats.h"

namespace pk {

const std::vector<std::string>& point_cost_columns() {
  static const std::vector<std::string> c = {"wall_ms", "timed_ms", "harness_ms", "harness_phases"};
  return c;
}

namespace point_cost {
namespace {
std::mutex mu;
Totals& current() {
  static Totals t;
  return t;
}
}  // namespace

void timed(double ms) {
  std::lock_guard<std::mutex> l(mu);
  current().timed_ms += ms;
}

void phase(const std::string& name, double ms) {
  std::lock_guard<std::mutex> l(mu);
  auto& v = current().phases;
  auto it = std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == name; });
  if (it == v.end()) v.emplace_back(name, ms);
  else it->second += ms;
}

namespace {
thread_local Phase* open_phase = nullptr;  // the innermost Phase of this thread
}

Phase::Phase(const char* name) : name_(name), t0_(std::chrono::steady_clock::now()), outer_(open_phase) {
  open_phase = this;
}

Phase::~Phase() {
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  open_phase = outer_;
  if (outer_) outer_->inner_ms_ += ms;
  phase(name_, ms - inner_ms_);
}

Totals take() {
  std::lock_guard<std::mutex> l(mu);
  Totals t = std::move(current());
  current() = Totals{};
  return t;
}

}  // namespace point_cost

void put_point_cost(Row& row, double wall_ms, const point_cost::Totals& t) {
  row["wall_ms"] = fmt_num(wall_ms, 4);
  row["timed_ms"] = fmt_num(t.timed_ms, 4);
  row["harness_ms"] = fmt_num(std::max(0.0, wall_ms - t.timed_ms), 4);
  std::string phases;
  double named = 0;
  for (const auto& [name, ms] : t.phases) {
    phases += (phases.empty() ? "" : " ") + name + ":" + fmt_num(ms, 3);
    named += ms;
  }
  if (wall_ms - named >= 0.01) phases += (phases.empty() ? "" : " ") + std::string("other:") + fmt_num(wall_ms - named, 3);
  row["harness_phases"] = phases;
}

std::vector<std::pair<std::string, double>> parse_phases(const std::string& phases, const std::string& where) {
  std::vector<std::pair<std::string, double>> out;
  std::istringstream in(phases);
  std::string part;
  while (in >> part) {
    const size_t colon = part.rfind(':');
    double ms = 0;
    size_t used = 0;
    try {
      if (colon != std::string::npos && colon > 0) ms = std::stod(part.substr(colon + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || colon + 1 + used != part.size())
      throw CsvError(where + ": harness_phases: '" + clip(part, 60) + "' is not name:ms");
    out.emplace_back(part.substr(0, colon), ms);
  }
  return out;
}

std::optional<PointCostSummary> summarize_point_cost(const std::string& csv) {
  const CsvPeek peek = peek_csv(csv);
  if (std::find(peek.header.begin(), peek.header.end(), "harness_ms") == peek.header.end()) return std::nullopt;
  ReadOptions o;
  o.one_machine = false;
  std::vector<Field> fields = {{"status", ColumnType::text, false},
                               {"study", ColumnType::text, false},
                               {"peer_mode", ColumnType::text, false},
                               {"gpu_count", ColumnType::integer, false},
                               {"harness_phases", ColumnType::text}};
  for (const char* c : {"wall_ms", "timed_ms", "harness_ms"}) fields.push_back({c, ColumnType::number, true, true});
  const CsvTable t = CsvTable::read(csv, fields, o);
  PointCostSummary s;
  s.csv = csv;
  std::vector<double> harness, wall, timed;
  std::map<std::string, std::vector<double>> parts;  // one value per point, 0 where it had none
  for (size_t i = 0; i < t.rows(); ++i) {
    if (s.study.empty()) s.study = std::string(t.text(i, "study"));
    if (s.peer_mode.empty()) s.peer_mode = std::string(t.text(i, "peer_mode"));
    if (!s.gpus) s.gpus = static_cast<int>(t.integer(i, "gpu_count"));
    if (t.has("status") && t.text(i, "status") != "ok") continue;
    if (t.empty(i, "harness_ms")) continue;  // a row written before its study had the columns
    harness.push_back(t.number(i, "harness_ms"));
    wall.push_back(t.number(i, "wall_ms"));
    timed.push_back(t.number(i, "timed_ms"));
    for (const auto& [name, ms] : parse_phases(std::string(t.text(i, "harness_phases")), where(csv, t.line_of(i), 0))) {
      auto& v = parts[name];
      v.resize(harness.size() - 1);  // the points before without this part
      v.push_back(ms);
    }
  }
  s.points = harness.size();
  s.harness_median_ms = quantile(harness, 0.5);
  s.harness_p90_ms = quantile(harness, 0.9);
  s.wall_median_ms = quantile(wall, 0.5);
  s.timed_median_ms = quantile(timed, 0.5);
  for (auto& [name, v] : parts) {
    v.resize(s.points);
    s.phases.emplace_back(name, quantile(v, 0.5));
  }
  std::stable_sort(s.phases.begin(), s.phases.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return s;
}

std::string point_cost_table(const std::vector<PointCostSummary>& summaries, size_t parts) {
  std::ostringstream os;
  os << "| CSV | study | peer mode | GPUs | points | harness ms median | harness ms p90 | wall ms median | "
        "timed ms median | largest parts (median ms) |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  auto cell = [](const std::string& v) { return v.empty() ? std::string("-") : v; };
  for (const PointCostSummary& s : summaries) {
    std::string largest;
    for (size_t i = 0; i < s.phases.size() && i < parts; ++i)
      largest += (i ? ", " : "") + s.phases[i].first + " " + fmt_num(s.phases[i].second, 3);
    os << "| `" << s.csv << "` | " << cell(s.study) << " | " << cell(s.peer_mode) << " | "
       << (s.gpus ? std::to_string(s.gpus) : "-") << " | " << s.points << " | ";
    if (s.points)
      os << fmt_num(s.harness_median_ms, 3) << " | " << fmt_num(s.harness_p90_ms, 3) << " | "
         << fmt_num(s.wall_median_ms, 3) << " | " << fmt_num(s.timed_median_ms, 3) << " | " << cell(largest) << " |\n";
    else
      os << "- | - | - | - | no ok point |\n";
  }
  return os.str();
}

}  // namespace pk
