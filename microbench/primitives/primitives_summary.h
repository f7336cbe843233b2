#pragma once
// pkbench_primitives_summary: primitives.csv -> primitives_summary.md. Reads the CSV by
// column name through the harness's reader (microbench/harness/csv_table.h: the study's
// columns checked, any order), so it keeps working as the schema grows. Plain C++.
#include <map>
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::prim {

// A primitives CSV as rows of named values.
struct PrimitivesRows {
  std::vector<std::string> columns;
  std::vector<Row> rows;
};
// This study's own declaration, as a primitives CSV's header is checked against it.
const StudySchemas& own_schema();
// Throws std::runtime_error for a missing, malformed or foreign file (the harness's reader).
PrimitivesRows read_csv(const std::string& path);

// The first row with status ok whose columns equal every `where` entry; nullptr if none.
const Row* find_ok(const PrimitivesRows& t, const std::map<std::string, std::string>& where);
// Every ok row matching `where`.
std::vector<const Row*> all_ok(const PrimitivesRows& t, const std::map<std::string, std::string>& where);
double value_of(const Row& r);  // the `value` column as a number

// The paper's numbers (section 3.1.4).
inline constexpr double kPaperLatencyRatio = 4.5;   // "up to 4.5x lower element-wise NVLink access latency"
inline constexpr double kPaperBandwidthGain = 20;   // "about 20 GB/s higher bandwidth"
// `targets`: the targets section's table, as the report prints it (pkbench_primitives_summary
// passes targets_table_markdown(primitives_targets(csv)): primitives_targets.h). ""
// leaves the section saying so.
std::string summary_markdown(const PrimitivesRows& t, const std::string& targets = "");

}  // namespace pk::prim
