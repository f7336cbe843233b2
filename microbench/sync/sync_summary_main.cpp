// pkbench_sync_summary: sync CSV -> sync_summary.md
#include <cstdio>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/sync/sync_analysis.h"

static const char* kUsage = "usage: pkbench_sync_summary SYNC_CSV OUT_DIR\n  writes OUT_DIR/sync_summary.md\n";

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string csv, out;
  cli.app().add_option("SYNC_CSV", csv)->required();
  cli.add_output("OUT_DIR", &out)->required();
  cli.parse(argc, argv);
  try {
    auto rows = pk::sync::read_sync_csv(csv);
    if (rows.empty()) {
      std::fprintf(stderr, "%s: no sync rows in %s\n", argv[0], csv.c_str());
      return 1;
    }
    pk::write_file_atomically(out + "/sync_summary.md", pk::sync::sync_summary_markdown(rows));
    std::printf("wrote %s/sync_summary.md from %zu rows\n", out.c_str(), rows.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
