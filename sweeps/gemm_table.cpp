#include "gemm_table.h"

#include <algorithm>

namespace pk::sweeps {

std::string GemmRow::shape() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

GemmData read_gemm(const std::string& path) {
  using T = ColumnType;
  const CsvTable t = CsvTable::read(path,
                                    {{"impl"},
                                     {"variant"},
                                     {"m", T::integer},
                                     {"n", T::integer},
                                     {"k", T::integer},
                                     {"sms", T::integer},
                                     {"tflops", T::number},
                                     {"ratio_to_cublas", T::number, false},
                                     {"time_us_median", T::number},
                                     {"time_us_min", T::number, false},
                                     {"time_us_max", T::number, false},
                                     {"cv", T::number, false},
                                     {"status"},
                                     {"git_commit", T::text, false}},
                                    {"gemm"});
  GemmData d;
  d.path = path;
  d.machine = t.machine();
  d.total = t.rows();
  if (t.rows()) d.git_commit = std::string(t.text(0, "git_commit"));
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    GemmRow r;
    r.impl = t.text(i, "impl");
    r.variant = t.text(i, "variant");
    r.m = t.integer(i, "m");
    r.n = t.integer(i, "n");
    r.k = t.integer(i, "k");
    r.sms = static_cast<int>(t.integer(i, "sms"));
    r.tflops = t.number(i, "tflops");
    r.ratio_to_cublas = t.number(i, "ratio_to_cublas");
    r.time_us_median = t.number(i, "time_us_median");
    r.time_us_min = t.number(i, "time_us_min");
    r.time_us_max = t.number(i, "time_us_max");
    r.cv = t.number(i, "cv");
    r.line = t.line_of(i);
    d.rows.push_back(r);
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

}  // namespace pk::sweeps
