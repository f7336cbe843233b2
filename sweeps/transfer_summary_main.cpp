// pkbench_transfer_summary: transfer CSV -> transfer_summary.md + transfer_tuning.csv
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../microbench/harness/tidy_csv.h"
#include "transfer_table.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr,
                 "usage: %s TRANSFER_CSV OUT_DIR [ELAPSED_SECONDS]\n"
                 "  writes OUT_DIR/transfer_summary.md and OUT_DIR/transfer_tuning.csv\n",
                 argv[0]);
    return 2;
  }
  try {
    const std::string out = argv[2];
    double elapsed = argc == 4 ? std::atof(argv[3]) : -1;
    auto rows = pk::sweeps::read_transfer_csv(argv[1]);
    if (rows.empty()) {
      std::fprintf(stderr, "%s: no successful transfer rows in %s\n", argv[0], argv[1]);
      return 1;
    }
    auto sum = pk::sweeps::summarize_mechanisms(rows);
    pk::write_file_atomically(out + "/transfer_summary.md", pk::sweeps::summary_markdown(rows, sum, elapsed));
    pk::write_file_atomically(out + "/transfer_tuning.csv", pk::sweeps::tuning_csv(pk::sweeps::tuning_table(rows)));
    std::printf("wrote %s/transfer_summary.md and %s/transfer_tuning.csv from %zu rows\n", out.c_str(), out.c_str(),
                rows.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
}
