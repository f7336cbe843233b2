#pragma once
// The fused-kernel tuning table (name "fused"): per machine, operator, GPU count and local
// GEMM shape, intra-SM or inter-SM overlap, and for inter-SM the best number of
// communication SMs, chosen with the measured noise in mind.
//
// Interface with the fused study (microbench/fused, not written yet): the table reads
// these columns of its CSV (study "fused"); the study should declare them in its columns
// function (and register it with one pk_sweeps_study line in sweeps/CMakeLists.txt):
//   op          gemm_rs | ag_gemm | gemm_ar
//   overlap     intra_sm | inter_sm | baseline (non-overlapped or library baselines) |
//               component (a GEMM or a collective alone: ignored)
//   impl        implementation name (baselines: cublas_nccl, pk_gemm_then_collective, ...)
//   m, n, k     the local GEMM shape (integers); gpus (integer)
//   comm_sms    SMs given to communication (integer; 0 for intra-SM and baselines)
//   time_us_median, time_us_min, time_us_max (numbers, per fused operation), cv (number)
//   tflops      (number), status, plus the metadata columns.
// Noise: rows whose min..max overlaps the fastest's are tied; among them the fewest
// communication SMs win (intra-SM counts as 0), then intra-SM before inter-SM.
// Exercised on tests/fixtures/fused_fixture.csv (written in this schema by hand).
#include <string>
#include <vector>

#include "csv_table.h"
#include "tuning_table.h"

namespace pk::sweeps {

const std::vector<Field>& fused_fields();
TuningTable fused_tuning(const std::string& csv_path);

}  // namespace pk::sweeps
