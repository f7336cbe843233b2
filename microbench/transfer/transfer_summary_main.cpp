// pkbench_transfer_summary: transfer CSV -> transfer_summary.md + transfer_tuning.csv
//   pkbench_transfer_summary TRANSFER_CSV OUT_DIR [ELAPSED_SECONDS]
// Without ELAPSED_SECONDS, the study's wall time is read from the timing.csv beside TRANSFER_CSV
// (main_run_elapsed), where scripts/run.sh recorded it.
// (pkbench_tune writes the tuning table also as JSON and as a C++ header.)
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/transfer/transfer_analysis.h"

static const char* kUsage =
    "usage: pkbench_transfer_summary TRANSFER_CSV OUT_DIR [ELAPSED_SECONDS]\n"
    "  writes OUT_DIR/transfer_summary.md and OUT_DIR/transfer_tuning.csv\n"
    "  ELAPSED_SECONDS: the study's wall time; default: its main run's in the timing.csv beside\n"
    "  TRANSFER_CSV (scripts/run.sh writes it), else unknown\n";

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string csv, out, e;
  cli.app().add_option("TRANSFER_CSV", csv)->required();
  cli.add_output("OUT_DIR", &out)->required();
  cli.app().add_option("ELAPSED_SECONDS", e);
  cli.parse(argc, argv);
  double elapsed = -1;
  if (!e.empty()) {
    auto r = std::from_chars(e.data(), e.data() + e.size(), elapsed);
    if (r.ec != std::errc() || r.ptr != e.data() + e.size() || elapsed < 0)
      cli.refuse("ELAPSED_SECONDS '" + e + "' is not a number of seconds >= 0");
  }
  try {
    if (e.empty()) {
      const auto beside = pk::transfer::main_run_elapsed((std::filesystem::path(csv).parent_path() / "timing.csv").string());
      if (beside) elapsed = beside->seconds;
    }
    auto d = pk::transfer::read_transfer(csv);
    if (d.rows.empty()) {
      std::fprintf(stderr, "%s: no successful transfer rows in %s\n", argv[0], csv.c_str());
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
