#pragma once
// The `tuned` schedule (issue 21): at each (operator, shape) of a run, the fused configuration
// a tuning table answers, obtained the way a user's program obtains it (pkbench/tuning.h,
// Tuner::choose_split), run through the schedule and knobs it names, after the run's other
// rows of that shape. The sweeps set it against the best fused row of the same run and the
// answered schedule at its untuned knobs (KnobUse::untuned). Plain C++ (CPU-tested);
// fused_bench.cu runs the points.
#include <string>
#include <vector>

#include <pkbench/tuning.h>

#include "microbench/fused/fused_problem.h"

namespace pk::fused {

inline constexpr const char* kTunedSchedule = "tuned";  // Point::schedule, the CSV's impl and overlap

// What needs no GPU: the file reads as a pkbench tuning table of this schema version, and it
// is the fused one. ArgError naming --tuning-table otherwise.
void check_tuning_table(const std::string& path);

// The machine key the table's rows must carry for this run: machine_key(GPU model, physical
// GPU count), or with virtual ranks virtual_machine_key(that, ranks), which only a table
// written by pkbench_tune --allow-virtual from the same virtual ranks holds.
std::string tuning_machine(const std::string& gpu_name, int gpu_count, bool virtual_ranks, int ranks);

// The table loaded for `machine`; ArgError naming --tuning-table when refused (another
// machine, virtual rows for a real machine).
pkbench::tuning::Tuner load_tuning_table(const std::string& path, const std::string& machine);

// The tuned point of (op, shape) on `world` ranks: the answered schedule and knobs, or the
// refusal (the point is then skipped with it). `table` names the table in the answer.
Point tuned_point(const pkbench::tuning::Tuner& tuner, const std::string& table, Op op, const Shape& s, int size_n,
                  int world);
// `points` with a tuned point after the last point of each (operator, shape).
std::vector<Point> with_tuned_points(const std::vector<Point>& points, const pkbench::tuning::Tuner& tuner,
                                     const std::string& table, int world);
// The point that runs: a tuned point's answer (its schedule, its knobs), any other point as it is.
Point point_run(const Point& p);

}  // namespace pk::fused
