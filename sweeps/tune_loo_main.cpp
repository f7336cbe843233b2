// pkbench_tune_loo: leave-one-out validation of pkbench/tuning.h's answers between
// measurements (sweeps/tuning_loo.h says how).
//   pkbench_tune_loo [--out DIR] [--tolerance PCT] CSV...
// Each transfer or collectives CSV is validated on its own; the fused CSVs together (one
// machine). Prints the summary; with --out writes DIR/leave_one_out.md and .csv. CPU only.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/csv_table.h"
#include "sweeps/cli_util.h"
#include "sweeps/tuning_loo.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;

int main(int argc, char** argv) {
  std::string out, tol_text = "5";
  std::vector<std::string> csvs;
  const Tool tool = parse_tool_line(
      argc, argv,
      {.options = {{"--out", &out}, {"--tolerance", &tol_text}},
       .args = &csvs,
       .usage = "usage: pkbench_tune_loo [--out DIR] [--tolerance PCT] CSV...\n"
                "  CSV: transfer, collectives or fused study CSVs (the fused ones are one machine's, taken together).\n"
                "  Hides each measured point, answers it through pkbench/tuning.h from the others, and compares the\n"
                "  answer's measured time there with the best measured there (within: <= 1 + PCT/100; default 5).\n"});
  std::string command = "pkbench_tune_loo";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (const auto& c : csvs)
    if (!fs::is_regular_file(c)) tool.refuse("'" + c + "': no such file");
  if (csvs.empty()) tool.refuse("no CSV given");
  char* end = nullptr;
  const double tol = std::strtod(tol_text.c_str(), &end);
  if (end == tol_text.c_str() || *end || !(tol >= 0 && tol < 100))
    tool.refuse("--tolerance=" + tol_text + ": a percentage in [0, 100)");
  if (!out.empty() && !fs::is_directory(out)) tool.refuse("--out=" + out + ": not a folder");
  std::vector<std::string> transfer, collectives, fused;
  for (const auto& c : csvs) {
    const std::string study = pk::peek_csv(c).study;
    if (study == "transfer") transfer.push_back(c);
    else if (study == "collectives") collectives.push_back(c);
    else if (study == "fused") fused.push_back(c);
    else
      tool.refuse("'" + c + "' is " + (study.empty() ? "not a study CSV" : "a " + study + " CSV") +
                  ": transfer, collectives or fused CSVs");
  }
  try {
    std::vector<LooResult> results;
    for (const auto& c : transfer)
      for (auto& r : loo_transfer(c, tol / 100)) results.push_back(std::move(r));
    for (const auto& c : collectives) results.push_back(loo_collectives(c, tol / 100));
    if (!fused.empty()) results.push_back(loo_fused(fused, tol / 100));
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
