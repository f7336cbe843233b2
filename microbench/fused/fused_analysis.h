#pragma once
// The fused study's analysis (plain C++, no CUDA; microbench/fused/analysis.cmake builds it
// even where the study is left out, the sweeps find it through the study's line of
// sweeps/CMakeLists.txt). The fused-kernel tuning table (name "fused"): per machine, operator, GPU count and local
// GEMM shape, intra-SM or inter-SM overlap, and for inter-SM the best number of
// communication SMs, chosen with the measured noise in mind.
//
// Interface with the fused study (microbench/fused: fused_columns()): the table reads
// these columns of its CSV (study "fused"):
//   op          gemm_rs | ag_gemm | gemm_ar
//   overlap     intra_sm | inter_sm | baseline (non-overlapped or library baselines) |
//               component (a GEMM or a collective alone: ignored)
//   impl        implementation name (baselines: cublas_nccl, pk_gemm_then_collective, ...)
//   m, n, k     the local GEMM shape (integers); gpus (integer)
//   comm_sms    SMs given to communication (integer; 0 for intra-SM and baselines)
//   time_us_median, time_us_min, time_us_max (numbers, per fused operation), cv (number)
//   tflops      (number), status, plus the metadata columns; peer_mode ("virtual": rows of
//               virtual ranks, whose tuning rows name the machine "<machine>-virtual<ranks>"),
//               tuning (on `tuned` rows, impl and overlap "tuned": never a tuning candidate).
// Noise: rows whose min..max overlaps the fastest's are tied; among them the fewest
// communication SMs win (intra-SM counts as 0), then intra-SM before inter-SM.
// Exercised on tests/fixtures/fused_fixture.csv (written in this schema by hand).
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_measure.h"
#include "microbench/harness/targets.h"
#include "microbench/harness/tuned_section.h"
#include "microbench/harness/tuning_table.h"

namespace pk::fused {

TuningTable fused_tuning(const std::string& csv_path);

// Figures 7-9 as numbers: per operator and shape of a fused CSV, cuBLAS then NCCL (the
// paper's baseline, impl "cublas_nccl") and each schedule at its best knob setting, as
// speedups over it (baseline median / schedule median). Also read when present: size_n
// (the paper's N), comm_ratio and comm_share (the communication's share of cuBLAS then NCCL),
// git_commit, peer_mode.
struct FusedShape {
  std::string op;
  int64_t size_n = 0;  // 0: an explicit shape (--shapes)
  int64_t m = 0, n = 0, k = 0, gpus = 0;
  double cublas_nccl_us = 0;  // 0: not measured
  // The communication's share of cuBLAS then NCCL, 0..1 (-1: not recorded): the cublas_nccl
  // row's comm_ratio, (its median - our GEMM alone) / its median; else its comm_share, NCCL
  // alone / (cuBLASLt alone + NCCL alone).
  double comm_share = -1;
  double intra_us = 0, inter_us = 0;  // best of each (0: not measured)
  int64_t inter_comm_sms = 0;
  std::string baseline_impl;  // fastest baseline other than cuBLAS then NCCL ("": none)
  double baseline_us = 0;
  // PyTorch's async tensor parallelism at this point (0: none): the ref_time_us that
  // pkbench_torch_ref wrote on the rows whose ref_tool is symm_mem.fused_* (torch_ref.h).
  double torch_us = 0;
  double speedup(double us) const { return us > 0 && cublas_nccl_us > 0 ? cublas_nccl_us / us : 0; }
  double best_fused_us() const { return intra_us > 0 && (inter_us <= 0 || intra_us <= inter_us) ? intra_us : inter_us; }
  const char* best_fused() const { return best_fused_us() == intra_us ? "intra_sm" : "inter_sm"; }
  // The fastest baseline of any kind (cuBLAS then NCCL, another of the run's baselines, or
  // PyTorch's async TP): what a fused target compares with.
  bool other_baseline_best() const { return baseline_us > 0 && (cublas_nccl_us <= 0 || baseline_us < cublas_nccl_us); }
  double run_baseline_us() const { return other_baseline_best() ? baseline_us : cublas_nccl_us; }
  bool torch_best() const { return torch_us > 0 && (run_baseline_us() <= 0 || torch_us < run_baseline_us()); }
  double best_baseline_us() const { return torch_best() ? torch_us : run_baseline_us(); }
  std::string best_baseline() const {
    return torch_best() ? "pytorch_async_tp" : other_baseline_best() ? baseline_impl : "cublas_nccl";
  }
};
struct FusedSummary {
  std::string path, git_commit, peer_mode;
  size_t rows = 0, ok = 0;
  std::vector<FusedShape> shapes;  // in the CSV's order of first appearance
};
FusedSummary fused_summary(const std::string& csv_path);

// Table 3 as numbers: per K of a GEMM+RS K sweep (fused_table3.csv), the medians (us) of
// the GEMM alone (ours), cuBLAS then NCCL and both fused kernels, and the non-overlapped
// communication share of each fused kernel (the comm_ratio column: (fused - GEMM alone) /
// fused). Missing values are negative.
struct KSweepRow {
  int64_t m = 0, n = 0, k = 0;
  double gemm_us = -1, cublas_nccl_us = -1, intra_us = -1, inter_us = -1;
  double intra_ratio = -1, inter_ratio = -1;
  int64_t inter_comm_sms = 0;
};
std::vector<KSweepRow> fused_k_sweep(const std::string& csv_path, const std::string& op = "gemm_rs");

// Each `tuned` row (pkbench_fused --tuning-table: impl and overlap "tuned", the answer in its
// tuning column) against the same run's fastest fused row at its point (the table's
// candidates: intra_sm and inter_sm at every comm_sms) and the answered schedule at its
// untuned knobs (the answer's default=, e.g. inter_sm/comm_sms:16), medians.
struct FusedTuned : TunedRatio {  // best, default_config: "intra_sm", "inter_sm comm_sms=8"
  std::string op;
  int64_t m = 0, n = 0, k = 0, gpus = 0;
};
std::vector<FusedTuned> fused_tuned_points(const std::string& csv_path);
// The fused summary (pkbench_fused_summary): the CSV's row counts and its Tuned section.
std::string fused_summary_markdown(const std::string& csv_path);

// The fused study's targets (results/*/fused/README.md, the sweeps' report): the best fused
// kernel >= 1.25x cuBLAS then NCCL where communication is >= 30 % of it, never more than 3 %
// slower than the best baseline elsewhere; GEMM+RS communication hidden (<= 5 %) from K = 4096
// (Table 3's K sweep, may be empty).
const TargetSpecs& fused_target_specs();
std::vector<TargetResult> fused_targets(const FusedSummary& f, const std::vector<KSweepRow>& k_sweep);
std::string fused_op_text(const std::string& op);  // "gemm_rs" -> "GEMM+RS"

// How pkbench_compare matches and measures this study's points (registered by COMPARE on the
// study's line of sweeps/CMakeLists.txt).
StudyMeasure fused_measure();

}  // namespace pk::fused
