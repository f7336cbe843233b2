// What the GEMM study gives the tools that span the studies (microbench/harness/study_parts.h):
// its parts of a folder's report (its row, its TFLOP/s beside another machine's and cuBLASLt's,
// its targets).
#include <set>

#include "microbench/gemm/gemm_analysis.h"
#include "microbench/harness/format.h"
#include "microbench/harness/study_parts.h"


namespace pk::gemm {

namespace {

class GemmResults final : public FileResults<GemmData> {
 public:
  GemmResults(const std::string& csv, const StudySchemas* schemas) : FileResults(read_gemm(csv, schemas)) {}
  void table_rows(std::ostream& os, const std::string& dir, const std::string&) const override {
    os << "| gemm | `" << relative_to(data.path, dir) << "` | " << data.total << " | " << dash_if_empty(data.git_commit)
       << " | - |\n";
  }
  void beside(std::ostream& os, const StudyResults& other, const std::string& key, const std::string& okey) const override;
  void section(std::ostream& os, const std::string& dir) const override;
  std::vector<TargetResult> targets() const override { return gemm_targets(data); }
};

// TFLOP/s of every shape and SM count both folders measured.
void GemmResults::beside(std::ostream& os, const StudyResults& other, const std::string& key,
                         const std::string& okey) const {
  const auto* o = dynamic_cast<const GemmResults*>(&other);
  if (!o) return;
  os << "\nGEMM, TFLOP/s of every shape and SM count both measured (this suite's default variant c1 and "
        "cuBLASLt, same run on each machine):\n\n| shape | SMs | "
     << key << " cuBLASLt | " << key << " c1 | " << okey << " cuBLASLt | " << okey << " c1 | " << okey << " / " << key
     << " (c1) |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : data.rows) {
    if (r.impl != "cublaslt") continue;
    const GemmRow* a = find_gemm(data, "pkbench", "c1", r.m, r.n, r.k, r.sms);
    const GemmRow* ob = find_gemm(o->data, "cublaslt", "", r.m, r.n, r.k, r.sms);
    const GemmRow* oa = find_gemm(o->data, "pkbench", "c1", r.m, r.n, r.k, r.sms);
    if (!a || !ob || !oa) continue;
    os << "| " << r.shape() << " | " << r.sms << " | " << num(r.tflops) << " | " << num(a->tflops) << " | "
       << num(ob->tflops) << " | " << num(oa->tflops) << " | " << num(oa->tflops / a->tflops, 3) << " |\n";
  }
}

// This suite's kernel against cuBLASLt, same run.
void GemmResults::section(std::ostream& os, const std::string&) const {
  os << "\n## GEMM (this suite's kernel against cuBLASLt, same run)\n\n| shape | SMs | cuBLASLt TFLOP/s |";
  std::set<std::string> variants;
  for (const auto& r : data.rows)
    if (r.impl != "cublaslt") variants.insert(r.variant);
  for (const auto& v : variants) os << " " << v << " TFLOP/s (ratio) |";
  os << "\n|---|---:|---:|";
  for (size_t i = 0; i < variants.size(); ++i) os << "---:|";
  os << "\n";
  for (const auto& r : data.rows) {
    if (r.impl != "cublaslt") continue;
    os << "| " << r.shape() << " | " << r.sms << " | " << num(r.tflops) << " |";
    for (const auto& v : variants) {
      const GemmRow* p = find_gemm(data, "pkbench", v, r.m, r.n, r.k, r.sms);
      os << " " << (p ? num(p->tflops) + " (" + num(p->tflops / r.tflops, 3) + ")" : "-") << " |";
    }
    os << "\n";
  }
}

}  // namespace

StudyParts gemm_parts() {
  StudyParts s;
  s.measure = gemm_measure;
  s.load = load_csv<GemmResults>("gemm/gemm.csv");
  s.name_beside = "GEMM study";
  s.target_specs = &gemm_target_specs();
  s.order = {.studies = 30, .figures = 60, .claims = 0, .sections = 30, .targets = 30};
  return s;
}

}  // namespace pk::gemm
