#pragma once
// Leave-one-out validation of pkbench/tuning.h's rule for points nobody measured: hide each
// measured point of a study CSV (a transfer direction x pattern x message size; a collective x
// dtype x GPUs x launch mode x size; a fused operator x GPUs x shape), build the tuning table
// from the other rows with the study's own table builder, ask the API for the hidden point,
// and compare the measured time of the configuration it answers, at that point, with the best
// time measured there (the same CSV). A case counts as within when answer / best <= 1 + tol.
// Cases the API refuses (outside the measured range once the point is hidden: the edges) and
// cases whose answered configuration was not measured at the hidden point are counted apart
// and never as within.
#include <string>
#include <vector>

namespace pk::sweeps {

struct LooCase {
  std::string table, csv, point;  // point: e.g. "push one_way 4096 B (any)"
  std::string basis;              // what the API said: interpolated, predicted, refused
  std::string answer, best;       // configurations
  double answer_us = 0, best_us = 0;  // measured at the hidden point (0: not measured)
  bool evaluable() const { return answer_us > 0 && best_us > 0; }
  double ratio() const { return evaluable() ? answer_us / best_us : 0; }
};

struct LooResult {
  std::string table, source;
  double tolerance = 0.05;
  std::vector<LooCase> cases;
  int refused() const;
  int not_measured() const;  // answered, but that configuration was not measured at the point
  int evaluable() const;
  int within() const;
  const LooCase* worst() const;  // the largest ratio among the evaluable (nullptr: none)
};

// Transfer: one result per choice ("any", "device"). Collectives and fused: one result.
// Fused: every CSV given is one table of the same machine; a hidden shape is removed from all.
std::vector<LooResult> loo_transfer(const std::string& csv, double tolerance = 0.05);
LooResult loo_collectives(const std::string& csv, double tolerance = 0.05);
LooResult loo_fused(const std::vector<std::string>& csvs, double tolerance = 0.05);

// A summary (per table: hidden points, refused, not measured, evaluable, within, fraction,
// worst case; and over all tables) and every case as CSV.
std::string loo_markdown(const std::vector<LooResult>& results);
std::string loo_csv(const std::vector<LooResult>& results);

}  // namespace pk::sweeps
