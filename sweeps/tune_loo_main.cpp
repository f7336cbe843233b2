// pkbench_tune_loo: leave-one-out validation of pkbench/tuning.h's answers between
// measurements (sweeps/tuning_loo.h says how).
//   pkbench_tune_loo [--out DIR] [--tolerance PCT] CSV...
// Each study with a tuning table validates its CSVs (StudyParts::leave_one_out: a transfer or
// collectives CSV on its own, the fused CSVs together, one machine), the studies in their
// registry's order. Prints the summary; with --out writes DIR/leave_one_out.md and .csv. CPU only.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/csv_table.h"
#include "microbench/harness/tool_cli.h"
#include "sweeps/study_schema.h"
#include "sweeps/tuning_loo.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;

int main(int argc, char** argv) {
  std::string out, tol_text = "5";
  std::vector<std::string> csvs;
  const std::vector<const StudyParts*> studies = parts_with([](const StudyParts& p) { return bool(p.leave_one_out); });
  static const std::string usage =
      "usage: pkbench_tune_loo [--out DIR] [--tolerance PCT] CSV...\n"
      "  CSV: " + names_text(studies, "or") + " study CSVs (a study whose table spans its CSVs takes them\n"
      "  together: one machine's).\n"
      "  Hides each measured point, answers it through pkbench/tuning.h from the others, and compares the\n"
      "  answer's measured time there with the best measured there (within: <= 1 + PCT/100; default 5).\n";
  ToolCli cli(argv[0], usage);
  cli.add_output("--out", &out, ToolCli::Output::folder);
  cli.app().add_option("--tolerance", tol_text);
  cli.app().add_option("CSV", csvs);
  cli.parse(argc, argv);
  std::string command = "pkbench_tune_loo";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (const auto& c : csvs)
    if (!fs::is_regular_file(c)) cli.refuse("'" + c + "': no such file");
  if (csvs.empty()) cli.refuse("no CSV given");
  char* end = nullptr;
  const double tol = std::strtod(tol_text.c_str(), &end);
  if (end == tol_text.c_str() || *end || !(tol >= 0 && tol < 100))
    cli.refuse("--tolerance=" + tol_text + ": a percentage in [0, 100)");
  std::vector<std::vector<std::string>> of_study(studies.size());  // the CSVs given, by study
  for (const auto& c : csvs) {
    const std::string study = pk::peek_csv(c).study;
    size_t i = 0;
    while (i < studies.size() && studies[i]->study != study) ++i;
    if (i == studies.size())
      cli.refuse("'" + c + "' is " + (study.empty() ? "not a study CSV" : "a " + study + " CSV") + ": " +
                 names_text(studies, "or") + " CSVs");
    of_study[i].push_back(c);
  }
  try {
    std::vector<LooResult> results;
    for (size_t i = 0; i < studies.size(); ++i)
      if (!of_study[i].empty())
        for (auto& r : studies[i]->leave_one_out(of_study[i], tol / 100)) results.push_back(std::move(r));
    char head[256];
    std::snprintf(head, sizeof head,
                  "Leave-one-out of pkbench/tuning.h's rule (within: the answer's measured time <= %.4g %% above the best "
                  "measured at the hidden point), computed on the CPU from the CSVs given.\n\n",
                  tol);
    const std::string md = std::string(head) + loo_markdown(results);
    std::fputs(md.c_str(), stdout);
    if (!out.empty()) {
      pk::write_files_atomically({{out + "/leave_one_out.md", "# Leave-one-out\n\nCommand: `" + command + "`\n\n" + md},
                                  {out + "/leave_one_out.csv", loo_csv(results)}});
      std::printf("wrote %s/leave_one_out.md and leave_one_out.csv\n", out.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_tune_loo: error: %s\n", e.what());
    return pk::exit_code_of(e);
  }
}
