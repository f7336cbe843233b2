#pragma once
// A tuning table as other projects consume it: typed columns, rows, the columns a lookup
// matches exactly (machine first) and, optionally, a size bucket [from, to]. Each study's
// table builder (transfer, collectives, fused) fills one; the writers turn any of them into
//   - CSV (plain values, one header line),
//   - JSON (nlohmann-json: {"schema", "schema_version", "table", "doc", "keys", "bucket", "sources",
//     "peer_modes", "machines", "columns": [...], "rows": [{...}]}; tuning/schema/ has its JSON Schema),
//   - a C++ header of data: a struct per table, `inline constexpr` rows, its columns
//     (pkbench::tuning::Column) and lookup_<table>(keys..., bytes) naming its keys, whose
//     search is pkbench/tuning.h's lookup_bucket (the row of the largest bucket starting at or
//     below `bytes`, the smallest bucket for sizes below every bucket, nullptr when no row has
//     those keys) or lookup_row; plus kGeneratedSchemaVersion and for_each_table(), through
//     which Tuner::load_compiled reads the rows. C++17 or later; it includes pkbench/tuning.h.
// The schema version is pkbench::tuning::kSchemaVersion (tuning/include/pkbench/tuning.h).
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "pkbench/tuning.h"

namespace pk::sweeps {

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

std::string table_csv(const TuningTable& t);
bool json_available();  // built with nlohmann-json
std::string table_json(const TuningTable& t);  // std::runtime_error when !json_available()
// One header for several tables (the machines of every table included).
std::string tables_header(const std::vector<TuningTable>& tables, const std::string& generated_by);

// The table as pkbench/tuning.h holds it (what load_json would make of table_json(t)),
// schema version pkbench::tuning::kSchemaVersion: for answering from a table in memory.
pkbench::tuning::Table api_table(const TuningTable& t);

// Reads a table written by table_csv back (the tests compare a header's lookups with it):
// every column as text.
struct CsvRows {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
CsvRows read_table_csv(const std::string& path);

// Tables of one name built from several CSVs become one table (several machines, or one
// machine's runs of different keys, e.g. bf16 and fp32); two tables with rows of the same keys
// are refused (std::runtime_error naming both sources and the keys).
TuningTable merge_tables(const std::vector<TuningTable>& tables);

}  // namespace pk::sweeps
