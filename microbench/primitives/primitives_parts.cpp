// What the primitives study gives the tools that span the studies
// (microbench/harness/study_parts.h): its parts of a folder's report (its row, the paper's
// NVSHMEM-style claim, its targets).
#include <filesystem>

#include "microbench/harness/study_parts.h"
#include "microbench/primitives/primitives_targets.h"

namespace pk::prim {

namespace {

// <dir>/primitives/primitives.csv, read by its targets.
class PrimResults final : public CsvPathResults {
 public:
  PrimResults(const std::string& csv, const StudySchemas* schemas) : CsvPathResults("primitives", csv, schemas) {}
  std::vector<TargetResult> targets() const override { return primitives_targets(csv, schemas); }
};

}  // namespace

StudyParts primitives_parts() {
  StudyParts s;
  s.load = load_csv<PrimResults>("primitives/primitives.csv");
  s.claims = {{"NVSHMEM-style element-wise access slower than PK-style", "up to 4.5x",
               [](const StudyResults*, const std::string& dir) -> std::string {
                 return std::filesystem::exists(dir + "/primitives/primitives_summary.md")
                            ? "see `primitives/primitives_summary.md`"
                            : "";
               },
               "pkbench_primitives, against the real NVSHMEM and NCCL device APIs"}};
  s.absent = [](const Machine*) { return std::string("library primitives (not measured here)"); };
  s.target_specs = &primitives_target_specs();
  s.order = {.studies = 60, .figures = 30, .claims = 30, .sections = 0, .targets = 60};
  return s;
}

}  // namespace pk::prim
