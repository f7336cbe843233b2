#pragma once
// Tidy CSV with a fixed schema: one row per point, every row has every column, and the file
// on disk is always whole: the first flush writes a temporary file and renames it over the
// old; each later one appends the rows added since, all of them in one write() (a point's
// flush costs its own rows, not the file's).
#include <map>
#include <utility>
#include <string>
#include <vector>

namespace pk {

using Row = std::map<std::string, std::string>;

class TidyCsv {
 public:
  TidyCsv(std::string path, std::vector<std::string> columns);

  // Throws std::invalid_argument for a column the schema lacks; missing columns stay empty.
  // Values are made plain (',' -> ';', '"' -> '\'', newlines -> ' '), so every tool can
  // split rows on commas (awk, gnuplot) without a CSV parser.
  void append(const Row& row);
  // The first call writes the header and all rows to path.tmp.<pid> and renames it to path;
  // later calls append the rows added since the last.
  void flush();

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> columns_;
  std::map<std::string, size_t> index_;
  std::vector<std::vector<std::string>> rows_;
  size_t flushed_ = 0;     // rows on disk
  bool on_disk_ = false;   // the header (and flushed_ rows) written by this object
};

std::string plain_field(std::string v);
// RFC 4180 quoting, only where needed (headers; values are plain already).
std::string csv_escape(const std::string& field);
std::string csv_line(const std::vector<std::string>& fields);

// Number formatting shared by all studies: fixed significant digits, "" for NaN.
std::string fmt_num(double v, int significant = 6);

// The columns every study's CSV carries besides its own, so a file read alone says where it
// was measured (filled by harness/metadata.h's metadata_row).
const std::vector<std::string>& metadata_columns();

// Writes `contents` to `path` through a temporary file (path.tmp.<pid>, same folder) and rename.
// On failure no temporary is left and `path` is untouched.
void write_file_atomically(const std::string& path, const std::string& contents);
// All or nothing for a set of files (path, contents): every temporary is written whole before
// the first rename, so a failure (disk full, unwritable folder) leaves every old file as it was.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace pk
