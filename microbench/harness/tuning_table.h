#pragma once
// A tuning table: typed columns, rows, the columns a lookup matches exactly (machine first)
// and, optionally, a size bucket [from, to]. Each study's analysis (transfer, collectives,
// fused) fills one and may write it as CSV (table_csv); the sweeps' pkbench_tune also writes
// it as JSON and as a C++ header (sweeps/tuning_writers.h). Plain C++, in the harness so that
// a study's analysis needs no sweeps/ header.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace pk {

enum class CellKind { text, integer, number, boolean };

struct TableColumn {
  std::string name;
  CellKind kind = CellKind::text;
  std::string doc;  // one line; says what an empty cell (0 in the header) means
};

// Empty (monostate), text, integer, number or boolean.
using Cell = std::variant<std::monostate, std::string, int64_t, double, bool>;

struct TuningTable {
  std::string name;  // "transfer" -> struct TransferTuning, kTransferTuning, lookup_transfer()
  std::string doc;   // what one row says and how it was chosen
  std::vector<TableColumn> columns;
  std::vector<std::string> keys;       // exact-match columns, lookup argument order
  std::string from_column, to_column;  // the size bucket (integers), or "" for none
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> sources;  // the CSVs it was built from
  std::vector<std::string> peer_modes;  // of the rows it was built from ("virtual" only with pkbench_tune --allow-virtual: see tune_main.cpp)

  int column(const std::string& name) const;  // index; std::logic_error if absent
  const Cell& at(size_t row, const std::string& column) const { return rows.at(row).at(this->column(column)); }
};

std::string cell_text(const Cell& c, int number_precision = 4);

// Plain values, one header line (a ',', '"' or newline in a value becomes ';').
std::string table_csv(const TuningTable& t);
// std::logic_error when a row's cells do not match the columns (count or kind).
void check_kinds(const TuningTable& t);

}  // namespace pk
