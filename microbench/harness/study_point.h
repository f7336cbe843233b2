#pragma once
// What every gated study binary wrote around its own Study, written once: one point's life
// (measured into the row its study described, stored, then the idle gap) and the binary's
// main().
#include <string>

#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/study.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/timing.h"

namespace pk {

// One point: `row` (what the study describes before measuring) completed by measure(row)
// under measure_point (a skip or an error lands in the row and never ends the run), stored
// under the point's name, then `gap_ms` idle before the next point.
template <class Measure>
void run_described_point(benchmark::State& state, PointResults& results, const std::string& name, Row row, double gap_ms,
                         Measure&& measure) {
  measure_point(state, row, [&] { measure(row); });
  results.put(name, row);
  idle_gap(gap_ms);
}

// A study's runner on its Context (members group, shape, opt.timing): run() is one point
// described by Derived::describe(p, shape, processes), measured by Derived::measure(p, row)
// under run_timed_point, the iteration time Derived::kTimeColumn.
template <class Derived, class Context>
class StudyRunner {
 public:
  StudyRunner(Context& c, PointResults& r) : ctx_(c), results_(r) {}
  template <class Point>
  void run(benchmark::State& state, const Point& p) {
    run_timed_point(state, results_, p.name(), Derived::describe(p, ctx_.shape, ctx_.group.processes()),
                    Derived::kTimeColumn, ctx_.opt.timing.gap_ms,
                    [&](Row& row) { static_cast<Derived*>(this)->measure(p, row); });
  }

 protected:
  Context& ctx_;
  PointResults& results_;
};

}  // namespace pk
