// pkbench_fused_summary: a fused CSV -> the summary markdown on stdout (or --out FILE): its row
// counts and the Tuned section (each `tuned` row against the same run's best fused row and
// the answered schedule's default).
#include <filesystem>
#include <string>

#include "microbench/harness/tool_cli.h"
#include "microbench/fused/fused_analysis.h"

static const char* kUsage =
    "usage: pkbench_fused_summary [--out FILE] CSV\n"
    "  prints (or writes FILE) the fused summary of CSV (pkbench_fused's): row counts and the tuned rows against\n"
    "  the same run's best fused row and the answered schedule's default\n";

int main(int argc, char** argv) {
  using namespace pk;
  using namespace pk::fused;
  answer_help(argc, argv, kUsage);
  std::string out, csv;
  for (int i = 1; i < argc; ++i) {
    if (option(argc, argv, i, "--out", &out)) continue;
    const std::string a = argv[i];
    if (a.rfind("--", 0) == 0) usage_error(argv[0], "unknown flag '" + a + "'", kUsage);
    if (!csv.empty()) usage_error(argv[0], "one CSV only ('" + a + "' is a second)", kUsage);
    if (!std::filesystem::is_regular_file(a)) usage_error(argv[0], "CSV '" + a + "': no such file", kUsage);
    csv = a;
  }
  if (csv.empty()) usage_error(argv[0], "a fused CSV is needed", kUsage);
  return emit_markdown(argv[0], out, [&] { return fused_summary_markdown(csv); });
}
