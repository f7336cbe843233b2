#pragma once
// One reader for every study's CSV (the sweeps, the primitives summary, the fused cost model):
// no fixed column count per study. The caller names the columns it uses and their types
// (Field); the reader
//   - checks the header against the study's declaration when given the studies' schemas
//     (ReadOptions::schemas; a column the study does not declare means a foreign file:
//     another study's CSV, or not a pkbench CSV at all),
//   - checks that every required column is there,
//   - parses every row's typed cells up front, so a bad value anywhere is reported, with
//     "<file>:<line>:<field>: column '<name>': ..." (the field is 1-based, as editors count),
//   - checks that every row comes from one machine (gpu_name, gpu_count, host) and one
//     study (the `study` column).
// Cells are stored by column: numbers as doubles, integers as int64, text interned per
// column (a code per row, so grouping compares integers). Lines are read in 16 MiB blocks
// and cut with memchr (the Fast C++ CSV Parser's LineReader, used before, scans byte by byte,
// a third of the time budget for a million rows); values are plain (the studies replace
// commas and quotes), so a line splits on commas.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pk {

// The longest line any reader of the studies' CSVs accepts (a study's header is a few KiB): a
// longer one is refused as "<file>:<line>: line longer than ..." (CsvError, exit 2), so a
// one-line file of hundreds of MB costs a bounded buffer, not a copy per field.
inline constexpr size_t kMaxCsvLineBytes = size_t{1} << 20;

enum class ColumnType { text, integer, number };

struct Field {
  std::string name;
  ColumnType type = ColumnType::text;
  bool required = true;  // false: the column may be absent (older CSVs); its cells read as empty
  // A measured quantity: a negative value is refused with its place, like a malformed one,
  // so no consumer ever ranks or divides by one. Set by itself for a number column named as
  // a time, bandwidth, size or rate (time_us*, *gbps*, *bytes, tflops*).
  bool non_negative = false;
};

// Which columns a study's CSV has, as the study itself declares them. The harness does not
// know the studies (they sit above it): whoever links them (the sweeps, sweeps/study_schema.h)
// builds the list and passes it in ReadOptions.
struct StudySchema {
  std::string name;         // the value of its CSV's `study` column
  std::string declared_by;  // "pk::transfer::transfer_columns() (pkbench_transfer_core)"
  // The declaration, with any metadata column (harness/metadata.h) and point-cost column
  // (harness/point_cost.h) it leaves out appended, as the binaries append them. Empty when not
  // built in.
  std::vector<std::string> columns;
  std::string not_built;  // why the columns are not in this binary; "" when they are
  bool built() const { return not_built.empty(); }
  bool declares(std::string_view column) const;
};
using StudySchemas = std::vector<StudySchema>;
// A study's schema from its own declaration (the function its binary passes to
// StudyMain::run), with the metadata and point-cost columns it leaves out appended as the
// binaries append them (tidy_csv.h's metadata_columns(), point_cost.h's point_cost_columns()).
StudySchema declared_study(std::string name, const std::vector<std::string>& columns, std::string declared_by);
const StudySchema* find_study(const StudySchemas& schemas, std::string_view name);  // nullptr: unknown
// A study's own declaration as a schema list, for its analysis to check its CSV's header against
// when no caller passes the registered ones: declared_study(study, columns(), declared_by), built
// on first use and kept for the program's life; nullptr when `columns` is (the declaration is
// not in this build: the header is then checked against the reader's fields only).
using ColumnsFunction = const std::vector<std::string>& (*)();
const StudySchemas* own_study_schemas(const std::string& study, ColumnsFunction columns, const std::string& declared_by);
// The built-in study whose declaration holds every column of `header` ("" if none): says
// whose CSV a foreign file is.
std::string study_with_columns(const StudySchemas& schemas, const std::vector<std::string>& header);

struct ReadOptions {
  // The study the file must belong to ("" = whichever its `study` column names).
  std::string study;
  // Reject rows of two machines (gpu_name, gpu_count, host) in one file.
  bool one_machine = true;
  // The studies' declarations: the header is checked against the study's when it is built
  // in. nullptr: against the reader's fields only.
  const StudySchemas* schemas = nullptr;
};

// The machine a file's rows came from.
struct Machine {
  std::string gpu_name, host;
  int gpu_count = 0;
  // "h200x2": the first word of the GPU name after "NVIDIA", lower case, letters and
  // digits only, "x", the GPU count (scripts/lib.sh's pk_machine_name makes the same name
  // from nvidia-smi).
  std::string key() const;
  std::string describe() const;  // "NVIDIA H200 x2 (host vm)"
};
std::string machine_key(const std::string& gpu_name, int gpu_count);

// A CSV that cannot be read as what it is read for (missing, malformed, another study's):
// every tool that reads one exits 2 on it (bad input, the file named), as on a bad argument;
// 1 stays for a failure of the tool itself.
struct CsvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A tool's exit code for an exception that ended it: 2 for bad input (CsvError), else 1.
inline int exit_code_of(const std::exception& e) { return dynamic_cast<const CsvError*>(&e) ? 2 : 1; }

class CsvTable {
 public:
  static constexpr int64_t kEmptyInteger = std::numeric_limits<int64_t>::min();

  // Throws CsvError naming the file (and line and field) for anything malformed.
  static CsvTable read(const std::string& path, const std::vector<Field>& fields, const ReadOptions& options = {});
  // The old interface: every named column required, read as text; any study.
  static CsvTable read(const std::string& path, const std::vector<std::string>& required);

  const std::string& path() const { return path_; }
  const std::string& study() const { return study_; }  // the `study` column's value ("" if none)
  const Machine& machine() const { return machine_; }
  size_t rows() const { return lines_.size(); }
  size_t line_of(size_t row) const { return lines_.at(row); }
  const std::vector<std::string>& header() const { return header_; }
  bool has(const std::string& column) const;  // in the file's header

  // A declared field's index (std::logic_error if the column was not declared when reading:
  // a reader uses only what it declared).
  int field(const std::string& column) const;
  ColumnType type(int field) const { return fields_.at(field).type; }

  // Access by field index (fast) or by column name.
  bool empty(size_t row, int f) const;
  std::string_view text(size_t row, int f) const;
  // Text columns: one code per distinct value (grouping compares integers, not strings).
  uint32_t code(size_t row, int f) const { return cols_[f].codes[row]; }
  size_t distinct(int f) const { return cols_[f].values.size(); }
  double number(size_t row, int f, double empty_value = 0) const;
  int64_t integer(size_t row, int f, int64_t empty_value = 0) const;

  bool empty(size_t row, const std::string& c) const { return empty(row, field(c)); }
  std::string_view text(size_t row, const std::string& c) const { return text(row, field(c)); }
  double number(size_t row, const std::string& c, double e = 0) const { return number(row, field(c), e); }
  int64_t integer(size_t row, const std::string& c, int64_t e = 0) const { return integer(row, field(c), e); }

 private:
  struct Column {
    Field decl;
    int header_index = -1;             // -1: absent (optional)
    std::vector<double> numbers;       // number: NaN = empty
    std::vector<int64_t> integers;     // integer: kEmptyInteger = empty
    std::vector<uint32_t> codes;       // text: interned
    std::vector<std::string> values;   // text: code -> value (code 0 is always "")
  };
  std::string path_, study_;
  Machine machine_;
  std::vector<std::string> header_;
  std::vector<Field> fields_;
  std::vector<Column> cols_;
  std::unordered_map<std::string, int> field_index_;
  std::vector<uint32_t> lines_;

  class Reader;  // csv_table.cpp
  static CsvTable read_unclipped(const std::string& path, const std::vector<Field>& fields,
                                 const ReadOptions& options);
};

// The header and the first row's `study` value ("" if no such column or no row), reading
// two lines only: which study a file belongs to, before reading it whole.
struct CsvPeek {
  std::vector<std::string> header;
  std::string study;
};
CsvPeek peek_csv(const std::string& path);

// `line` split on commas into its cells, as text ("a,,b," -> a, "", b, "").
std::vector<std::string> split_cells(std::string_view line);

// At most the first 200 characters of a value quoted in a message, then "...": a message
// quoting a 50 MB line stays short.
std::string clip(std::string_view v, size_t n = 200);

// "path:line:field: column 'c': why" (line/field 0: left out; the column name clipped).
std::string where(const std::string& path, size_t line, size_t field, const std::string& column = "");

// What a study's data says of its CSV besides the rows: the file, its machine, the commit and
// peer mode of its first row, its row count (every status).
struct StudyFile {
  std::string path, git_commit, peer_mode;
  Machine machine;
  size_t total = 0;
};
// `path` read as a CSV of `study` with a reader's fields (git_commit and peer_mode added where
// the reader leaves them out), its header checked against `schemas` (ReadOptions::schemas),
// `file` filled from it.
CsvTable read_study_csv(const std::string& path, const std::string& study, std::vector<Field> fields, StudyFile* file,
                        const StudySchemas* schemas);

}  // namespace pk
