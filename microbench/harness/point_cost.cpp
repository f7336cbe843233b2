#include "microbench/harness/point_cost.h"

#include <algorithm>
#include <mutex>

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

}  // namespace pk
