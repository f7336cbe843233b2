#pragma once
// Reads gemm-study CSVs (pkbench_gemm: this suite's GEMM beside cuBLASLt, same run).
#include <cstdint>
#include <string>
#include <vector>

#include "sweeps/study_schema.h"

namespace pk::sweeps {

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
GemmData read_gemm(const std::string& path);

// The row of `impl`/`variant` at the shape and SM count (nullptr if none).
const GemmRow* find_gemm(const GemmData& d, const std::string& impl, const std::string& variant, int64_t m, int64_t n,
                         int64_t k, int sms);
// Largest SM count measured for the shape (the whole GPU), 0 if none.
int gemm_full_sms(const GemmData& d);

}  // namespace pk::sweeps
