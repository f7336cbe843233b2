// pkbench_primitives_summary PRIMITIVES_CSV OUT_DIR [MORE_CSV...]
// Writes OUT_DIR/primitives_summary.md: the first CSV in full (every ratio within that run),
// then each further CSV (e.g. the single-process run) as its own section; the targets are the
// study's (primitives_targets.h), printed as the sweeps' report prints them.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/primitives/primitives_summary.h"
#include "microbench/primitives/primitives_targets.h"

static const char* kUsage =
    "usage: pkbench_primitives_summary PRIMITIVES_CSV OUT_DIR [MORE_CSV...]\n  writes OUT_DIR/primitives_summary.md\n";

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string first, out;
  std::vector<std::string> more;
  cli.app().add_option("PRIMITIVES_CSV", first)->required();
  cli.add_output("OUT_DIR", &out)->required();
  cli.app().add_option("MORE_CSV", more);
  cli.parse(argc, argv);
  std::vector<std::string> csvs{first};
  csvs.insert(csvs.end(), more.begin(), more.end());
  for (const auto& c : csvs)  // a missing CSV is bad input, refused before anything is read
    if (!std::ifstream(c)) cli.refuse("no such CSV '" + c + "'");
  try {
    std::string md;
    size_t rows = 0;
    for (const auto& c : csvs) {
      const pk::prim::PrimitivesRows t = pk::prim::read_csv(c);
      if (t.rows.empty()) throw std::runtime_error("no rows in " + c);
      rows += t.rows.size();
      if (!md.empty()) md += "\n---\n\n# Another run: " + c + "\n\n";
      md += pk::prim::summary_markdown(t, pk::targets_table_markdown(pk::prim::primitives_targets(c)));
    }
    pk::write_file_atomically(out + "/primitives_summary.md", md);
    std::printf("wrote %s/primitives_summary.md from %zu rows\n", out.c_str(), rows);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
