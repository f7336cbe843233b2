#pragma once
// One reader for every study's CSV: columns are found by name (no fixed column count per
// study), required columns are checked up front, and a bad value is reported with the
// file, line and column. Values are plain (the studies replace commas and quotes), so a
// line splits on commas; lines are read with the Fast C++ CSV Parser's LineReader.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pk::sweeps {

class CsvTable {
 public:
  // Throws std::runtime_error "<path>: missing column 'x'" (etc.) for a malformed file.
  static CsvTable read(const std::string& path, const std::vector<std::string>& required);

  const std::string& path() const { return path_; }
  size_t rows() const { return cells_.size(); }
  bool has(const std::string& column) const { return index_.count(column) != 0; }
  const std::vector<std::string>& columns() const { return columns_; }
  // The raw text ("" for an absent optional column).
  const std::string& text(size_t row, const std::string& column) const;
  // Numbers; an empty cell is `empty_value`. Throws "<path>:<line>: column '<c>': '<v>' is
  // not a number".
  double number(size_t row, const std::string& column, double empty_value = 0) const;
  int64_t integer(size_t row, const std::string& column, int64_t empty_value = 0) const;
  size_t line_of(size_t row) const { return lines_.at(row); }

 private:
  [[noreturn]] void bad_value(size_t row, const std::string& column, const std::string& why) const;
  std::string path_;
  std::vector<std::string> columns_;
  std::map<std::string, size_t> index_;
  std::vector<std::vector<std::string>> cells_;
  std::vector<size_t> lines_;
};

}  // namespace pk::sweeps
