// pkbench_transfer_summary: transfer CSV -> transfer_summary.md + transfer_tuning.csv
//   pkbench_transfer_summary TRANSFER_CSV OUT_DIR [ELAPSED_SECONDS]
// (pkbench_tune writes the tuning table also as JSON and as a C++ header.)
#include <charconv>
#include <cstdio>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/transfer/transfer_analysis.h"

static const char* kUsage =
    "usage: pkbench_transfer_summary TRANSFER_CSV OUT_DIR [ELAPSED_SECONDS]\n"
    "  writes OUT_DIR/transfer_summary.md and OUT_DIR/transfer_tuning.csv\n";

int main(int argc, char** argv) {
  pk::answer_help(argc, argv, kUsage);
  if (argc < 3 || argc > 4) pk::usage_error(argv[0], "a CSV and an output folder are needed", kUsage);
  pk::check_output_parent(argv[0], "OUT_DIR", argv[2], kUsage);
  double elapsed = -1;
  if (argc == 4) {
    const std::string e = argv[3];
    auto r = std::from_chars(e.data(), e.data() + e.size(), elapsed);
    if (r.ec != std::errc() || r.ptr != e.data() + e.size() || elapsed < 0) {
      std::fprintf(stderr, "%s: error: ELAPSED_SECONDS '%s' is not a number of seconds >= 0\n", argv[0], argv[3]);
      return 2;
    }
  }
  try {
    const std::string out = argv[2];
    auto d = pk::transfer::read_transfer(argv[1]);
    if (d.rows.empty()) {
      std::fprintf(stderr, "%s: no successful transfer rows in %s\n", argv[0], argv[1]);
      return 1;
    }
    auto sum = pk::transfer::summarize_mechanisms(d.rows);
    pk::write_files_atomically({{out + "/transfer_summary.md", pk::transfer::summary_markdown(d, sum, elapsed)},
                                {out + "/transfer_tuning.csv", pk::table_csv(pk::transfer::transfer_tuning(d))}});
    std::printf("wrote %s/transfer_summary.md and %s/transfer_tuning.csv from %zu rows\n", out.c_str(), out.c_str(),
                d.rows.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
