// pkbench_primitives_summary PRIMITIVES_CSV OUT_DIR [MORE_CSV...]
// Writes OUT_DIR/primitives_summary.md: the first CSV in full (every ratio within that run),
// then each further CSV (e.g. the single-process run) as its own section; the targets are the
// study's (primitives_targets.h), printed as the sweeps' report prints them.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/primitives/primitives_summary.h"
#include "microbench/primitives/primitives_targets.h"

static const char* kUsage =
    "usage: pkbench_primitives_summary PRIMITIVES_CSV OUT_DIR [MORE_CSV...]\n  writes OUT_DIR/primitives_summary.md\n";

int main(int argc, char** argv) {
  pk::answer_help(argc, argv, kUsage);
  if (argc < 3) pk::usage_error(argv[0], "a CSV and an output folder are needed", kUsage);
  pk::check_output_parent(argv[0], "OUT_DIR", argv[2], kUsage);
  for (int i = 1; i < argc; ++i)  // a flag or a missing CSV is bad input, refused before anything is read
    if (i != 2 && (argv[i][0] == '-' || !std::ifstream(argv[i])))
      pk::usage_error(argv[0], std::string(argv[i][0] == '-' ? "unknown flag '" : "no such CSV '") + argv[i] + "'", kUsage);
  try {
    std::string md;
    size_t rows = 0;
    for (int i = 1; i < argc; ++i) {
      if (i == 2) continue;
      const pk::prim::PrimitivesRows t = pk::prim::read_csv(argv[i]);
      if (t.rows.empty()) throw std::runtime_error(std::string("no rows in ") + argv[i]);
      rows += t.rows.size();
      if (!md.empty()) md += "\n---\n\n# Another run: " + std::string(argv[i]) + "\n\n";
      md += pk::prim::summary_markdown(t, pk::targets_table_markdown(pk::prim::primitives_targets(argv[i])));
    }
    pk::write_file_atomically(std::string(argv[2]) + "/primitives_summary.md", md);
    std::printf("wrote %s/primitives_summary.md from %zu rows\n", argv[2], rows);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
