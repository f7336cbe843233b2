// pkbench_sync_summary: sync CSV -> sync_summary.md
#include <cstdio>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/sync/sync_analysis.h"

static const char* kUsage = "usage: pkbench_sync_summary SYNC_CSV OUT_DIR\n  writes OUT_DIR/sync_summary.md\n";

int main(int argc, char** argv) {
  pk::answer_help(argc, argv, kUsage);
  if (argc != 3) pk::usage_error(argv[0], "a CSV and an output folder are needed", kUsage);
  pk::check_output_parent(argv[0], "OUT_DIR", argv[2], kUsage);
  try {
    auto rows = pk::sync::read_sync_csv(argv[1]);
    if (rows.empty()) {
      std::fprintf(stderr, "%s: no sync rows in %s\n", argv[0], argv[1]);
      return 1;
    }
    pk::write_file_atomically(std::string(argv[2]) + "/sync_summary.md", pk::sync::sync_summary_markdown(rows));
    std::printf("wrote %s/sync_summary.md from %zu rows\n", argv[2], rows.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
