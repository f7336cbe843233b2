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
  pk::answer_help(argc, argv, kUsage);
  std::string out;
  std::vector<std::string> csvs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a.rfind("--out=", 0) == 0) out = a.substr(6);
    else if (a.rfind("--", 0) == 0) pk::usage_error(argv[0], "unknown flag '" + a + "'", kUsage);
    else if (!std::filesystem::is_regular_file(a)) pk::usage_error(argv[0], "CSV '" + a + "': no such file", kUsage);
    else csvs.push_back(a);
  }
  if (csvs.empty()) pk::usage_error(argv[0], "a collectives CSV is needed", kUsage);
  if (!out.empty()) pk::check_output_parent(argv[0], "--out", out, kUsage);
  return pk::emit_markdown(argv[0], out, [&] { return pk::coll::collectives_summary_markdown(csvs); });
}
