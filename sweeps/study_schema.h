#pragma once
// Which columns each study's CSV has, taken from the study's own declaration (the function
// its binary passes to StudyMain::run), so the sweeps never keep a second copy. A study
// registers with one call in its folder's study.cmake (microbench/<study>/study.cmake):
//   pk_sweeps_study(<study> <library defining the function> <qualified columns function>)
// e.g. pk_sweeps_study(transfer pkbench_transfer_core pk::transfer::transfer_columns).
// A study whose library is not part of this build (PKBENCH_STUDIES, or not written yet) is
// still known by name, with the reason its columns are missing; its CSVs are then read
// against the fields the reader asks for only.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_parts.h"

namespace pk::sweeps {

const StudySchemas& registered_studies();
const StudySchema* find_study(std::string_view name);  // nullptr: never registered

// Options reading a CSV of `study` ("" = whichever its `study` column names), its header
// checked against the registered declaration.
ReadOptions checked_as(std::string study);

// `path` read as a CSV of `study` with a reader's fields, its header checked against every
// registered study's declaration (pk::read_study_csv with registered_studies(); StudyFile:
// microbench/harness/csv_table.h).
CsvTable read_study_csv(const std::string& path, const std::string& study, std::vector<Field> fields, StudyFile* file);

// What each registered study gives the tools that span the studies (PARTS on its line of
// sweeps/CMakeLists.txt; microbench/harness/study_parts.h), in the lines' order.
const std::vector<StudyParts>& registered_parts();
// Those for which has(parts) holds, in the lines' order.
std::vector<const StudyParts*> parts_with(const std::function<bool(const StudyParts&)>& has);
// Those the report shows (a `load`), in their order for one part of the report
// (&ReportOrder::claims, ...; ties in the lines' order).
std::vector<const StudyParts*> parts_in_order(int ReportOrder::*part);
// Their names as a sentence lists them: "transfer, collectives or fused" (last = "or").
std::string names_text(const std::vector<const StudyParts*>& parts, const std::string& last);

}  // namespace pk::sweeps
