#include "microbench/harness/study_parts.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "microbench/harness/format.h"

namespace pk {

CsvInfo csv_info(const std::string& path, const StudySchemas* schemas) {
  ReadOptions o;
  o.schemas = schemas;
  o.one_machine = false;
  const CsvTable t = CsvTable::read(
      path, {{"status", ColumnType::text, false}, {"git_commit", ColumnType::text, false}, {"peer_mode", ColumnType::text, false}},
      o);
  CsvInfo c;
  c.rows = t.rows();
  for (size_t i = 0; i < t.rows(); ++i) {
    c.ok += t.text(i, "status") == "ok";
    if (c.commit.empty()) c.commit = t.text(i, "git_commit");
    if (c.peer_mode.empty()) c.peer_mode = t.text(i, "peer_mode");
  }
  return c;
}

void csv_table_row(std::ostream& os, const std::string& label, const std::string& path, const std::string& shown,
                   const StudySchemas* schemas) {
  const CsvInfo c = csv_info(path, schemas);
  os << "| " << label << " | `" << shown << "` | " << c.rows << " (" << c.ok << " ok) | " << dash_if_empty(c.commit)
     << " | " << dash_if_empty(c.peer_mode) << " |\n";
}

std::string relative_to(const std::string& path, const std::string& dir) {
  return std::filesystem::relative(path, dir).string();
}

void ModeTally::count(bool ok, const std::string& what) {
  ++checked;
  if (ok) return;
  ++missed;
  misses += (misses.empty() ? "" : ", ") + what;
}

TargetResult ModeTally::result(const TargetSpec& spec, const std::string& head, const std::string& what) const {
  TargetResult t{spec.id, head + std::to_string(checked - missed) + " of " + std::to_string(checked) + " " + what + " within",
                 spec.text(), missed ? Verdict::missed : Verdict::met, misses.empty() ? "" : " (outside: " + misses + ")"};
  t.what = spec.what;
  t.origin = spec.origin;
  return t;
}

bool mode_ratio_cells(std::ostream& os, const std::vector<double>& v, double limit) {
  bool ok = true;
  for (size_t i = 1; i < v.size(); ++i) {
    if (std::isnan(v[i])) {
      os << " - |";
      ok = false;
      continue;
    }
    const double q = v[i] / v[0];
    ok &= std::fabs(q - 1) <= limit;
    os << " " << num(q, 3) << " |";
  }
  return ok;
}

void mode_table_head(std::ostream& os, const std::string& lead, const std::vector<std::string>& modes, const char* unit,
                     const std::vector<std::string>& tail) {
  os << lead;
  for (const auto& m : modes) os << " " << m << unit << " |";
  for (size_t i = 1; i < modes.size(); ++i) os << " " << modes[i] << " / " << modes[0] << " |";
  for (const auto& t : tail) os << " " << t << " |";
  os << "\n|";
  for (size_t i = 1; i < static_cast<size_t>(std::count(lead.begin(), lead.end(), '|')); ++i) os << "---|";
  for (size_t i = 0; i < 2 * modes.size() - 1; ++i) os << "---:|";
  for (size_t i = 0; i < tail.size(); ++i) os << "---|";
  os << "\n";
}

bool mode_value_cells(std::ostream& os, const std::vector<double>& v, int prec, const char* unit, double limit) {
  for (const double x : v) os << " " << (std::isnan(x) ? std::string("-") : num(x, prec) + unit) << " |";
  return mode_ratio_cells(os, v, limit);
}

}  // namespace pk
