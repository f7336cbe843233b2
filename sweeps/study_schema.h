#pragma once
// Which columns each study's CSV has, taken from the study's own declaration (the function
// its binary passes to StudyMain::run), so the sweeps never keep a second copy. A study
// registers with one line in sweeps/CMakeLists.txt:
//   pk_sweeps_study(<study> <library defining the function> <qualified columns function>)
// e.g. pk_sweeps_study(transfer pkbench_transfer_core pk::transfer::transfer_columns).
// A study whose library is not part of this build (PKBENCH_STUDIES, or not written yet) is
// still known by name, with the reason its columns are missing; its CSVs are then read
// against the fields the reader asks for only.
#include <string>
#include <string_view>
#include <vector>

namespace pk::sweeps {

struct StudySchema {
  std::string name;         // the value of its CSV's `study` column
  std::string declared_by;  // "pk::transfer::transfer_columns() (pkbench_transfer_core)"
  // The declaration, with any metadata column (harness/metadata.h) it leaves out appended,
  // as the binaries append them. Empty when not built in.
  std::vector<std::string> columns;
  std::string not_built;  // why the columns are not in this binary; "" when they are
  bool built() const { return not_built.empty(); }
  bool declares(std::string_view column) const;
};

const std::vector<StudySchema>& registered_studies();
const StudySchema* find_study(std::string_view name);  // nullptr: never registered
// The built-in study whose declaration holds every column of `header` ("" if none): says
// whose CSV a foreign file is.
std::string study_with_columns(const std::vector<std::string>& header);

}  // namespace pk::sweeps
