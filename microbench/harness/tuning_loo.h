#pragma once
// Leave-one-out validation of pkbench/tuning.h's rule for points nobody measured: hide each
// measured point of a study CSV (a transfer direction x pattern x message size; a collective x
// dtype x GPUs x launch mode x size; a fused operator x GPUs x shape), build the tuning table
// from the other rows with the study's own table builder, ask the API for the hidden point,
// and compare the measured time of the configuration it answers, at that point, with the best
// time measured there (the same CSV). A case counts as within when answer / best <= 1 + tol.
// Cases the API refuses (outside the measured range once the point is hidden: the edges) and
// cases whose answered configuration was not measured at the hidden point are counted apart
// and never as within. Each study with a tuning table validates its own (its analysis, through
// StudyParts::leave_one_out); pkbench_tune_loo prints the results (sweeps/tuning_loo.h).
#include <functional>
#include <string>
#include <vector>

namespace pk {

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

// What the studies' validations share: a CSV as text rows (values never hold commas: the
// studies replace them), a copy of it without some rows (for the table builders, which read a
// path), the machine key its rows name, and its cells as numbers.
struct LooCsv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int col(const std::string& n) const;  // std::runtime_error when missing
  bool has(const std::string& n) const;
};
LooCsv read_loo_csv(const std::string& path);
// A temporary copy of `c` holding the rows keep(row) accepts (`tag` names it); the caller
// removes it.
std::string write_loo_csv(const LooCsv& c, const std::string& tag,
                          const std::function<bool(const std::vector<std::string>&)>& keep);
// Virtual ranks' rows name their own machine (the collectives and fused tables): one rank
// count per CSV.
std::string loo_machine(const LooCsv& c);
// Error and skipped rows may leave numbers empty: 0 there.
long long loo_int(const std::string& s);
double loo_real(const std::string& s);

}  // namespace pk
