#pragma once
// The GEMM study's analysis (plain C++, no CUDA): its CSVs (pkbench_gemm: this suite's GEMM
// beside cuBLASLt, same run) read by column name, the lookups the sweeps' report uses, the
// study's target, and how pkbench_compare measures its points. The sweeps find it through the study's
// registration (pk_sweeps_study, microbench/gemm/study.cmake); microbench/gemm/analysis.cmake builds it
// even where the study itself is left out.
#include <cstdint>
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_measure.h"
#include "microbench/harness/study_parts.h"
#include "microbench/harness/targets.h"

namespace pk::gemm {

struct GemmRow {
  std::string impl, variant;  // impl "cublaslt" | "pkbench"; variant "" for cuBLASLt
  int64_t m = 0, n = 0, k = 0;
  int sms = 0;
  double tflops = 0, ratio_to_cublas = 0;
  double time_us_median = 0, time_us_min = 0, time_us_max = 0, cv = 0;
  size_t line = 0;
  std::string shape() const;  // "8192x8192x8192"
};

struct GemmData : StudyFile {
  std::vector<GemmRow> rows;  // status "ok"
};
// `schemas`: the declarations the header is checked against (the sweeps pass every registered
// study's, so that a foreign CSV is named by its study); nullptr: this study's own.
GemmData read_gemm(const std::string& path, const StudySchemas* schemas = nullptr);

// The row of `impl`/`variant` at the shape and SM count (nullptr if none).
const GemmRow* find_gemm(const GemmData& d, const std::string& impl, const std::string& variant, int64_t m, int64_t n,
                         int64_t k, int sms);
// Largest SM count measured for the shape (the whole GPU), 0 if none.
int gemm_full_sms(const GemmData& d);

// How pkbench_compare matches and measures this study's points (the study's parts give it:
// PARTS on its line of sweeps/CMakeLists.txt).
StudyMeasure gemm_measure();

// The GEMM study's target (results/*/gemm/README.md, the sweeps' report): this suite's GEMM
// >= 0.90x cuBLASLt at 8192^3 on the whole GPU, per variant; the other shapes as information.
const pk::TargetSpecs& gemm_target_specs();
std::vector<pk::TargetResult> gemm_targets(const GemmData& d);

// What the study gives the tools that span the studies (gemm_parts.cpp; PARTS on its line of
// sweeps/CMakeLists.txt).
StudyParts gemm_parts();

}  // namespace pk::gemm
