#include "microbench/harness/tuning_table.h"

#include <cstdio>
#include <stdexcept>

namespace pk {

void check_kinds(const TuningTable& t) {
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (t.rows[r].size() != t.columns.size())
      throw std::logic_error("table " + t.name + ": row " + std::to_string(r) + " has " +
                             std::to_string(t.rows[r].size()) + " cells for " + std::to_string(t.columns.size()) +
                             " columns");
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Cell& v = t.rows[r][c];
      if (std::holds_alternative<std::monostate>(v)) continue;
      const bool ok = (t.columns[c].kind == CellKind::text && std::holds_alternative<std::string>(v)) ||
                      (t.columns[c].kind == CellKind::integer && std::holds_alternative<int64_t>(v)) ||
                      (t.columns[c].kind == CellKind::number && std::holds_alternative<double>(v)) ||
                      (t.columns[c].kind == CellKind::boolean && std::holds_alternative<bool>(v));
      if (!ok) throw std::logic_error("table " + t.name + ": column '" + t.columns[c].name + "' row " +
                                      std::to_string(r) + " holds a value of the wrong kind");
    }
  }
}

int TuningTable::column(const std::string& n) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == n) return static_cast<int>(i);
  throw std::logic_error("table " + name + " has no column '" + n + "'");
}

std::string cell_text(const Cell& c, int prec) {
  if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
  if (std::holds_alternative<int64_t>(c)) return std::to_string(std::get<int64_t>(c));
  if (std::holds_alternative<bool>(c)) return std::get<bool>(c) ? "yes" : "no";
  if (std::holds_alternative<double>(c)) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", prec, std::get<double>(c));
    // Trim trailing zeros: 372.4000 -> 372.4, 8.0000 -> 8.
    std::string s = b;
    if (s.find('.') != std::string::npos) {
      while (!s.empty() && s.back() == '0') s.pop_back();
      if (!s.empty() && s.back() == '.') s.pop_back();
    }
    return s;
  }
  return "";
}

std::string table_csv(const TuningTable& t) {
  check_kinds(t);
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + t.columns[c].name;
  out += '\n';
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      std::string v = cell_text(row[c]);
      for (char& ch : v)
        if (ch == ',' || ch == '\n' || ch == '"') ch = ';';
      out += (c ? "," : "") + v;
    }
    out += '\n';
  }
  return out;
}

}  // namespace pk
