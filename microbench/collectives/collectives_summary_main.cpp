// pkbench_collectives_summary: collectives CSVs -> the summary markdown on stdout (or --out FILE).
// The first CSV is the main run (its points, targets and ablation); every CSV's row counts.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/collectives/collectives_analysis.h"

static const char* kUsage =
    "usage: pkbench_collectives_summary [--out FILE] MAIN_CSV [MORE_CSV...]\n"
    "  prints (or writes FILE) the collectives summary: row counts of every CSV, the targets, every point of\n"
    "  MAIN_CSV with best ours against the best NCCL (nccl-tests method and device-time view) and the ablation\n";

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string out;
  std::vector<std::string> csvs;  // MAIN_CSV [MORE_CSV...]
  cli.add_output("--out", &out);
  cli.app().add_option("CSV", csvs);
  cli.parse(argc, argv);
  for (const auto& c : csvs)
    if (!std::filesystem::is_regular_file(c)) cli.refuse("CSV '" + c + "': no such file");
  if (csvs.empty()) cli.refuse("a collectives CSV is needed");
  return pk::emit_markdown(argv[0], out, [&] { return pk::coll::collectives_summary_markdown(csvs); });
}
