#pragma once
// How pkbench_compare matches and measures one study's points. Each study's reader declares
// its own (beside the columns it reads, in microbench/<study>/) and registers it on the
// study's line of sweeps/CMakeLists.txt
// (pk_sweeps_study(... COMPARE <function>)); a study without one is listed by pkbench_compare
// as not compared. Plain C++, in the harness so that a study's analysis needs no sweeps/ header.
#include <string>
#include <vector>

namespace pk {

// Every member has an initializer: a declaration names only the members it sets
// (designated initializers), without -Wmissing-field-initializers for the rest.
struct StudyMeasure {
  std::string study = "";               // filled from the registration line
  std::vector<std::string> key = {};    // columns naming a point (the independent variables)
  std::vector<std::string> group = {};  // columns of the per-group summary
  std::string metric = "", unit = "";
  bool higher_better = true;
  // The sample range: time columns (median, min, max; the metric scales as 1/time when
  // higher_better, as time otherwise), or low/high columns relative to `range_ref`.
  std::string t_median = "", t_min = "", t_max = "", cv = "";
  std::string lo = "", hi = "", range_ref = "", range_ref_alt = "";
};

// The sample range of the studies that write the harness's timing columns (put_times()).
inline StudyMeasure with_timing_columns(StudyMeasure m) {
  m.t_median = "time_us_median";
  m.t_min = "time_us_min";
  m.t_max = "time_us_max";
  m.cv = "cv";
  return m;
}

}  // namespace pk
