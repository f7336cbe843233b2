#pragma once
// The writers of a tuning table (microbench/harness/tuning_table.h, where its CSV is written)
// as other projects consume it:
//   - JSON (nlohmann-json: {"schema", "schema_version", "table", "doc", "keys", "bucket", "sources",
//     "peer_modes", "machines", "columns": [...], "rows": [{...}]}; tuning/schema/ has its JSON Schema),
//   - a C++ header of data: a struct per table, `inline constexpr` rows, its columns
//     (pkbench::tuning::Column) and lookup_<table>(keys..., bytes) naming its keys, whose
//     search is pkbench/tuning.h's lookup_bucket (the row of the largest bucket starting at or
//     below `bytes`, the smallest bucket for sizes below every bucket, nullptr when no row has
//     those keys) or lookup_row; plus kGeneratedSchemaVersion and for_each_table(), through
//     which Tuner::load_compiled reads the rows. C++17 or later; it includes pkbench/tuning.h.
// The schema version is pkbench::tuning::kSchemaVersion (tuning/include/pkbench/tuning.h).
// Also: a table read back from its CSV, and tables of one name merged.
#include <string>
#include <vector>

#include "microbench/harness/tuning_table.h"
#include "pkbench/tuning.h"

namespace pk::sweeps {

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
