#pragma once
// Two results folders side by side: every study CSV found in both, point by point, as the
// ratio B / A of the point's median, with a change flagged only when the two points' sample
// ranges do not overlap (min..max of the samples, or p10..p90 where the study records
// those, or median +- 2 cv): a difference inside the measured noise is not a change.
#include <string>
#include <vector>

#include "microbench/harness/study_measure.h"

namespace pk::sweeps {

// The registered studies' measures (study_measure.h).
const std::vector<StudyMeasure>& study_measures();
const StudyMeasure* find_measure(const std::string& study);

struct PointDiff {
  std::string point, group;
  double a = 0, b = 0, a_lo = 0, a_hi = 0, b_lo = 0, b_hi = 0;
  bool has_range = false;
  int change = 0;  // +1 better, -1 worse, 0 within the noise (or no range recorded)
  double ratio() const { return a != 0 ? b / a : 0; }
};

struct FileDiff {
  std::string file, study, metric, unit;
  bool higher_better = true;
  std::string a_desc, b_desc;  // machine, commit, peer mode of each side
  std::vector<PointDiff> points;
  std::vector<std::string> only_a, only_b;
  size_t no_range = 0;
  int better() const;
  int worse() const;
};

struct FolderDiff {
  std::string a, b;
  std::vector<FileDiff> files;
  std::vector<std::string> notes;  // files on one side only, CSVs that are not study CSVs
  int changes() const;
};

// Throws std::runtime_error for a malformed CSV; notes what it cannot compare.
FolderDiff compare_folders(const std::string& a, const std::string& b);
FileDiff compare_files(const std::string& a_csv, const std::string& b_csv);

// Markdown: per file, the counts, a per-group summary and the flagged points (at most
// `top` per file; all points with `all`).
std::string compare_markdown(const FolderDiff& d, size_t top = 30, bool all = false);
// Every matched point as CSV (file, point, group, a, b, ratio, ranges, change).
std::string compare_csv(const FolderDiff& d);

}  // namespace pk::sweeps
