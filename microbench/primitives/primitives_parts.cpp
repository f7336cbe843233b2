// What the primitives study gives the tools that span the studies
// (microbench/harness/study_parts.h): its parts of a folder's report (its row, the paper's
// NVSHMEM-style claim, its targets).
#include <filesystem>

#include "microbench/harness/study_parts.h"
#include "microbench/primitives/primitives_targets.h"

namespace fs = std::filesystem;

namespace pk::prim {

namespace {

class PrimResults final : public StudyResults {
 public:
  PrimResults(std::string csv_, const StudySchemas* schemas_) : csv(std::move(csv_)), schemas(schemas_) {}
  void table_rows(std::ostream& os, const std::string& dir, const std::string&) const override {
    csv_table_row(os, "primitives", csv, relative_to(csv, dir), schemas);
  }
  std::vector<TargetResult> targets() const override { return primitives_targets(csv, schemas); }

  std::string csv;  // <dir>/primitives/primitives.csv
  const StudySchemas* schemas;
};

}  // namespace

const StudyParts& primitives_parts() {
  static const StudyParts p = [] {
    StudyParts s;
    s.load = [](const std::string& dir, const StudySchemas* schemas) -> std::unique_ptr<StudyResults> {
      const std::string csv = dir + "/primitives/primitives.csv";
      if (!fs::exists(csv)) return nullptr;
      return std::make_unique<PrimResults>(csv, schemas);
    };
    s.claims = {{"NVSHMEM-style element-wise access slower than PK-style", "up to 4.5x",
                 [](const StudyResults*, const std::string& dir) -> std::string {
                   return fs::exists(dir + "/primitives/primitives_summary.md") ? "see `primitives/primitives_summary.md`"
                                                                                 : "";
                 },
                 "pkbench_primitives, against the real NVSHMEM and NCCL device APIs"}};
    s.absent = [](const Machine*) { return std::string("library primitives (not measured here)"); };
    s.target_specs = &primitives_target_specs();
    s.order = {.studies = 60, .figures = 30, .claims = 30, .sections = 0, .targets = 60};
    return s;
  }();
  return p;
}

}  // namespace pk::prim
