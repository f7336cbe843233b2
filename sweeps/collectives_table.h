#pragma once
// The collectives tuning table (name "collectives"): per machine, collective, dtype, GPU
// count, launch mode and power-of-two size bucket, the implementation to use and its
// speedup over NCCL's best, chosen with the measured noise in mind.
//
// Interface with the collectives study (microbench/collectives): the table reads these
// columns of its CSV (study "collectives", as coll_columns() declares them today):
//   collective, impl, family, dtype, bytes (integer), gpus (integer), launch_mode, config,
//   time_us_median, time_us_p10, time_us_p90 (numbers, per collective), busbw_gbps (number),
//   status, plus the metadata columns.
// A row is an NCCL baseline when its `family` starts with "nccl" (nccl, nccl_sym).
// Noise: rows whose p10..p90 overlaps the fastest one's are tied; among them NCCL is
// preferred (nothing to maintain), then this suite's implementations in name order.
// Until the study writes CSVs these functions are exercised on
// tests/fixtures/collectives_fixture.csv (written in that schema by hand).
#include <string>
#include <vector>

#include "csv_table.h"
#include "tuning_table.h"

namespace pk::sweeps {

const std::vector<Field>& collectives_fields();
TuningTable collectives_tuning(const std::string& csv_path);

// The largest speedup of this suite's implementations (family "pk") over NCCL's best, at
// one size and launch mode of `collective`/`dtype` (the paper's "up to 1.79x").
struct CollectiveSpeedup {
  double speedup = 0;
  int64_t bytes = 0;
  std::string launch_mode, impl, nccl_impl;
};
CollectiveSpeedup best_speedup_over_nccl(const std::string& csv_path, const std::string& collective,
                                         const std::string& dtype);

// Per collective, dtype, GPU count and launch mode (in the CSV's order): this suite's best
// (family "pk") against NCCL's best at every size both measured; speedup = NCCL's median /
// ours.
struct CollectiveComparison {
  std::string collective, dtype, launch_mode;
  int64_t gpus = 0;
  int sizes = 0, faster = 0;  // sizes compared; sizes where ours is faster
  double best = 0, worst = 0;
  int64_t best_bytes = 0, worst_bytes = 0;
  std::string best_impl, worst_impl;
};
std::vector<CollectiveComparison> collective_comparisons(const std::string& csv_path);

}  // namespace pk::sweeps
