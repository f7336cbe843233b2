#pragma once
// The collectives study's analysis (plain C++, no CUDA; microbench/collectives/analysis.cmake
// builds it even where the study is left out, the sweeps find it through the study's line of
// sweeps/CMakeLists.txt). Its CSVs read once into points (best ours against best NCCL per
// collective, dtype, GPU count, launch mode and size, by the rules of verdict.h), and what is
// derived from them: the tuning table (name "collectives"), the comparisons the report and
// the summary print, and the summary markdown (pkbench_collectives_summary).
//
// Interface with the collectives study (microbench/collectives): the columns read are
//   collective, impl, family, dtype, bytes (integer), gpus (integer), launch_mode, config,
//   time_us_median, time_us_p10, time_us_p90 (the gated device-time view, per collective),
//   busbw_gbps, status; optional: time_us_nccltests and busbw_gbps_nccltests (the nccl-tests
//   method: the headline), nccl_config, nccl_algo, error, and per baseline row ref_tool,
//   ref_time_us, ref_ratio (its cross-check against its own tool; absent = not checked);
//   sms, threads, knobs (our kernels' grid and the swept knobs; absent in runs before them:
//   the grid is then read from config, the knobs are "auto"), peer_mode ("virtual": rows of
//   virtual ranks, whose tuning rows name the machine "<machine>-virtual<ranks>"), tuning
//   (on `tuned` rows, family "tuned": what the table answered; never a tuning candidate).
// A row is an NCCL baseline when its `family` starts with "nccl" (nccl, nccl_sym); "pk" rows
// are this suite's; "nvshmem" rows are shown beside and never counted as NCCL.
// Exercised on tests/fixtures/collectives_fixture.csv (tuning) and tests/fixtures/report/collectives.csv
// (points, verdicts, targets).
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_measure.h"
#include "microbench/harness/targets.h"
#include "microbench/harness/tuned_section.h"
#include "microbench/harness/tuning_table.h"
#include "microbench/harness/verdict.h"

namespace pk::coll {

TuningTable collectives_tuning(const std::string& csv_path);

// Which timing a comparison uses; ours and the baseline are always timed alike.
enum class CollMethod {
  nccltests,   // host timer around back-to-back launches (or -G graph replays), averaged over ranks
  device_time  // gated CUDA events, p10..p90 band: the device-time view
};
const char* coll_method_text(CollMethod m);

// One side of a point: the best row of a family under one method.
struct CollSide {
  std::string impl, family, config, nccl_algo;
  double us = 0, busbw = 0;
  int tied = 0;  // rows within the noise of this one (itself included)
  bool measured() const { return us > 0; }
};
struct CollPoint {
  std::string collective, dtype, launch_mode;
  int64_t gpus = 0, bytes = 0;
  CollSide ours, nccl, nvshmem;
  double speedup = 0;            // best NCCL / best ours
  double speedup_nvshmem = 0;    // NVSHMEM / best ours
  Outcome outcome = Outcome::no_baseline;
  CrossCheck check;              // the best NCCL row's
  std::string nvshmem_status;    // of the NVSHMEM row, whatever it is ("" = none)
};
struct CollectivesData {
  std::string path, git_commit;
  Machine machine;
  size_t rows = 0, ok = 0, skipped = 0, errors = 0;
  bool has_nccltests = false;  // some ok row carries time_us_nccltests
  std::vector<std::string> skip_reasons;  // "family: reason" of each skipped row
};
CollectivesData read_collectives_info(const std::string& csv_path);
// The method a CSV's headline uses: the nccl-tests method where the CSV has it, else the
// device-time view (older CSVs).
CollMethod headline_method(const CollectivesData& d);
// Every point of the CSV, in the order of first appearance, under `method`.
std::vector<CollPoint> collective_points(const std::string& csv_path, CollMethod method);
const CollPoint* find_point(const std::vector<CollPoint>& pts, const std::string& collective, const std::string& dtype,
                            int64_t bytes, const std::string& mode);

// The largest claimable speedup of ours over NCCL's best for `collective`/`dtype` under
// `method` (the paper's "up to 1.79x"): NCCL rows off their tool are left out; 0 when none.
struct CollectiveSpeedup {
  double speedup = 0;
  int64_t bytes = 0;
  std::string launch_mode, impl, nccl_impl;
  CrossCheck check;  // that NCCL row's
};
CollectiveSpeedup best_speedup_over_nccl(const std::string& csv_path, const std::string& collective,
                                         const std::string& dtype, CollMethod method);
// Under the CSV's headline method.
CollectiveSpeedup best_speedup_over_nccl(const std::string& csv_path, const std::string& collective,
                                         const std::string& dtype);

// Per collective, dtype, GPU count and launch mode (in the CSV's order), over every size both
// measured under `method`: how many, how many faster beyond the noise, the extremes.
struct CollectiveComparison {
  std::string collective, dtype, launch_mode;
  int64_t gpus = 0;
  int sizes = 0, faster = 0, ties = 0;
  int checked = 0, defective = 0;  // the best NCCL row within / off its tool (the rest: not checked)
  double best = 0, worst = 0;
  int64_t best_bytes = 0, worst_bytes = 0;
  std::string best_impl, worst_impl;
};
std::vector<CollectiveComparison> collective_comparisons(const std::vector<CollPoint>& pts);
std::vector<CollectiveComparison> collective_comparisons(const std::string& csv_path);  // headline method

// Each `tuned` row against the same point's best other row and the answered
// implementation's default grid (knobs auto), device-time view (gated medians).
struct TunedPoint : TunedRatio {  // best, default_config: "impl config" of those rows
  std::string collective, dtype, launch_mode;
  int64_t gpus = 0, bytes = 0;
};
std::vector<TunedPoint> tuned_points(const std::string& csv_path);

// The collectives study's targets (results/*/collectives/summary.md, the sweeps' report):
// all-reduce speedup bands, busbw at 1 GiB, all-gather / reduce-scatter / all-to-all at every
// size, the tensor-dimension variants; over bf16 points of `pts` (one method: the CSV's headline).
const TargetSpecs& collectives_target_specs();
std::vector<TargetResult> collectives_targets(const std::vector<CollPoint>& pts, CollMethod method);

// How pkbench_compare matches and measures this study's points (registered by COMPARE on the
// study's line of sweeps/CMakeLists.txt).
StudyMeasure collectives_measure();

// The collectives summary (pkbench_collectives_summary): per point both methods side by side,
// the targets, the NVSHMEM view, the ablation and the row counts of every CSV given. The first
// CSV is the main run.
std::string collectives_summary_markdown(const std::vector<std::string>& csv_paths);

}  // namespace pk::coll
