#pragma once
#include <vector>

namespace pk {

struct SampleStats {
  double median = 0, min = 0, max = 0, mean = 0;
  double p10 = 0, p90 = 0;  // quantile(samples, 0.1), quantile(samples, 0.9)
  double cv = 0;  // sample standard deviation / mean
  int n = 0;
};

// Throws std::invalid_argument on an empty sample.
SampleStats summarize(std::vector<double> samples);

// Quantile q in [0, 1] of the samples, linearly interpolated between the two nearest order
// statistics (p10, p50, p90); 0 for no samples.
double quantile(std::vector<double> samples, double q);

}  // namespace pk
