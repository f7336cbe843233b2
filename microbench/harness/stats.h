#pragma once
#include <vector>

namespace pk {

struct SampleStats {
  double median = 0, min = 0, max = 0, mean = 0;
  double cv = 0;  // sample standard deviation / mean
  int n = 0;
};

// Throws std::invalid_argument on an empty sample.
SampleStats summarize(std::vector<double> samples);

}  // namespace pk
