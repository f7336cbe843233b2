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
  ToolCli cli(argv[0], kUsage);
  std::string out, csv;
  cli.add_output("--out", &out);
  cli.app().add_option("CSV", csv);
  cli.parse(argc, argv);
  if (csv.empty()) cli.refuse("a fused CSV is needed");
  if (!std::filesystem::is_regular_file(csv)) cli.refuse("CSV '" + csv + "': no such file");
  return emit_markdown(argv[0], out, [&] { return fused_summary_markdown(csv); });
}
