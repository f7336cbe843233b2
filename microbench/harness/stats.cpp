#include "stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pk {

SampleStats summarize(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(v.begin(), v.end());
  SampleStats s;
  s.n = static_cast<int>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = s.n % 2 ? v[s.n / 2] : 0.5 * (v[s.n / 2 - 1] + v[s.n / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / s.n;
  if (s.n > 1 && s.mean != 0) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(ss / (s.n - 1)) / s.mean;
  }
  return s;
}

}  // namespace pk
