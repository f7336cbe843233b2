#include "csv_table.h"

#include <libfccp/csv.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace pk::sweeps {
namespace {

std::vector<std::string> split_plain(const char* line) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = line; *p; ++p) {
    if (*p == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (*p != '\r') {
      cur += *p;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

CsvTable CsvTable::read(const std::string& path, const std::vector<std::string>& required) {
  CsvTable t;
  t.path_ = path;
  try {
    io::LineReader in(path);
    const char* header = in.next_line();
    if (!header) throw std::runtime_error(path + ": empty file (no header)");
    t.columns_ = split_plain(header);
    for (size_t i = 0; i < t.columns_.size(); ++i) {
      if (t.columns_[i].find('"') != std::string::npos)
        throw std::runtime_error(path + ": quoted header fields are not pkbench CSV");
      if (!t.index_.emplace(t.columns_[i], i).second)
        throw std::runtime_error(path + ": column '" + t.columns_[i] + "' appears twice");
    }
    for (const auto& c : required)
      if (!t.index_.count(c)) throw std::runtime_error(path + ": missing column '" + c + "' (is this the right study's CSV?)");
    size_t line = 1;
    while (const char* l = in.next_line()) {
      ++line;
      if (!*l) continue;
      auto cells = split_plain(l);
      if (cells.size() != t.columns_.size())
        throw std::runtime_error(path + ":" + std::to_string(line) + ": " + std::to_string(cells.size()) +
                                 " fields, the header has " + std::to_string(t.columns_.size()));
      t.cells_.push_back(std::move(cells));
      t.lines_.push_back(line);
    }
  } catch (const io::error::base& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return t;
}

const std::string& CsvTable::text(size_t row, const std::string& column) const {
  static const std::string empty;
  auto it = index_.find(column);
  if (it == index_.end()) return empty;
  return cells_.at(row)[it->second];
}

void CsvTable::bad_value(size_t row, const std::string& column, const std::string& why) const {
  throw std::runtime_error(path_ + ":" + std::to_string(lines_.at(row)) + ": column '" + column + "': " + why);
}

double CsvTable::number(size_t row, const std::string& column, double empty_value) const {
  const std::string& s = text(row, column);
  if (s.empty()) return empty_value;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || errno == ERANGE) bad_value(row, column, "'" + s + "' is not a number");
  return v;
}

int64_t CsvTable::integer(size_t row, const std::string& column, int64_t empty_value) const {
  const std::string& s = text(row, column);
  if (s.empty()) return empty_value;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0' || errno == ERANGE) bad_value(row, column, "'" + s + "' is not an integer");
  return v;
}

}  // namespace pk::sweeps
