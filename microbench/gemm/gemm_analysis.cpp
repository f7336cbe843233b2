#include "microbench/gemm/gemm_analysis.h"

#include <algorithm>

#include "microbench/gemm/gemm_problem.h"
#include "microbench/harness/row_reader.h"

namespace pk::gemm {

std::string GemmRow::shape() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

namespace {
const RowReader<GemmRow>& gemm_reader() {
  using R = GemmRow;
  static const RowReader<R> r =
      RowReader<R>()
          .text("impl", &R::impl).text("variant", &R::variant)
          .integer("m", &R::m).integer("n", &R::n).integer("k", &R::k).integer("sms", &R::sms)
          .number("tflops", &R::tflops).number("ratio_to_cublas", &R::ratio_to_cublas, false)
          .number("time_us_median", &R::time_us_median).number("time_us_min", &R::time_us_min, false)
          .number("time_us_max", &R::time_us_max, false).number("cv", &R::cv, false)
          .also({"status"}).line(&R::line);
  return r;
}
}  // namespace

StudyMeasure gemm_measure() {
  return with_timing_columns(
      {.key = {"impl", "variant", "m", "n", "k", "sms"}, .group = {"impl", "variant"}, .metric = "tflops", .unit = "TFLOP/s"});
}

GemmData read_gemm(const std::string& path, const StudySchemas* schemas) {
  static const StudySchemas own{declared_study("gemm", gemm_columns(), "pk::gemm::gemm_columns() (pkbench_gemm_analysis)")};
  GemmData d;
  const CsvTable t = read_study_csv(path, "gemm", gemm_reader().fields(), &d, schemas ? schemas : &own);
  const auto row_of = gemm_reader().rows(t);
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    d.rows.push_back(row_of(i));
  }
  return d;
}

const GemmRow* find_gemm(const GemmData& d, const std::string& impl, const std::string& variant, int64_t m, int64_t n,
                         int64_t k, int sms) {
  for (const auto& r : d.rows)
    if (r.impl == impl && r.variant == variant && r.m == m && r.n == n && r.k == k && r.sms == sms) return &r;
  return nullptr;
}

int gemm_full_sms(const GemmData& d) {
  int s = 0;
  for (const auto& r : d.rows) s = std::max(s, r.sms);
  return s;
}

}  // namespace pk::gemm
