#include "microbench/gemm/gemm_analysis.h"

#include <algorithm>
#include <set>

#include "microbench/gemm/gemm_problem.h"
#include "microbench/harness/format.h"
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

const TargetSpecs& gemm_target_specs() {
  static const TargetSpecs v({
      {"gemm.vs_cublas", "issue: fused kernels (GEMM); results/*/gemm/README.md",
       "this suite's GEMM / cuBLASLt TFLOP/s at 8192^3 on the whole GPU", ">=", 0.90, ""},
  });
  return v;
}

std::vector<TargetResult> gemm_targets(const GemmData& d) {
  const TargetSpecs& spec = gemm_target_specs();
  std::vector<TargetResult> out;
  const int full = gemm_full_sms(d);
  std::set<std::string> variants;
  for (const auto& r : d.rows)
    if (r.impl != "cublaslt") variants.insert(r.variant);
  for (const auto& v : variants) {
    const GemmRow* ref = find_gemm(d, "cublaslt", "", 8192, 8192, 8192, full);
    const GemmRow* pk = find_gemm(d, "pkbench", v, 8192, 8192, 8192, full);
    if (!ref || !pk) {
      out.push_back(unmeasured_target(spec("gemm.vs_cublas"),
                                      "variant " + v + " at 8192^3 on " + std::to_string(full) + " SMs",
                               "cuBLASLt (autotuned, same run)"));
      continue;
    }
    const double ratio = pk->tflops / ref->tflops;
    out.push_back(judge_target(spec("gemm.vs_cublas"),
                               "GEMM " + v + " at 8192^3 on " + std::to_string(full) + " SMs: " + num(pk->tflops) +
                                   " / cuBLASLt " + num(ref->tflops) + " TFLOP/s = " + num(ratio, 3),
                               ratio, "cuBLASLt (autotuned, same run)"));
  }
  // Every other shape and SM count, as information: the lowest ratio.
  double worst = 1e9;
  std::string where_worst;
  for (const auto& r : d.rows) {
    if (r.impl == "cublaslt") continue;
    const GemmRow* ref = find_gemm(d, "cublaslt", "", r.m, r.n, r.k, r.sms);
    if (!ref || ref->tflops <= 0) continue;
    const double q = r.tflops / ref->tflops;
    if (q < worst) {
      worst = q;
      where_worst = r.variant + " " + r.shape() + " on " + std::to_string(r.sms) + " SMs";
    }
  }
  if (!where_worst.empty())
    out.push_back(TargetResult{"", "lowest ratio to cuBLASLt over every shape and SM count measured: " +
                                       num(worst, 3) + " (" + where_worst + ")",
                               "", Verdict::info, ""});
  return out;
}

}  // namespace pk::gemm
