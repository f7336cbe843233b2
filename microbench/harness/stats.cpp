#include "microbench/harness/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pk {

namespace {
double quantile_of_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * (v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}
}  // namespace

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return quantile_of_sorted(v, q);
}

SampleStats summarize(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(v.begin(), v.end());
  SampleStats s;
  s.n = static_cast<int>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = s.n % 2 ? v[s.n / 2] : 0.5 * (v[s.n / 2 - 1] + v[s.n / 2]);
  s.p10 = quantile_of_sorted(v, 0.1);
  s.p90 = quantile_of_sorted(v, 0.9);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / s.n;
  if (s.n > 1 && s.mean != 0) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(ss / (s.n - 1)) / s.mean;
  }
  return s;
}

}  // namespace pk
