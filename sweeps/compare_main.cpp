// pkbench_compare: two results folders side by side, point by point, as ratios B / A,
// flagging only the changes beyond the measured noise (sweeps/compare.h).
//   pkbench_compare A_DIR B_DIR [--out FILE.md] [--csv FILE.csv] [--top N] [--all] [--fail-on-change]
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "sweeps/compare.h"

using namespace pk;
using namespace pk::sweeps;

int main(int argc, char** argv) {
  ToolCli cli(argv[0],
              "usage: pkbench_compare A_DIR B_DIR [--out FILE.md] [--csv FILE.csv] [--top N] [--all] [--fail-on-change]\n"
              "  Compares every study CSV present in both folders (transfer.csv, sync.csv, gemm.csv, ...): B / A per point,\n"
              "  a change flagged only where the two sample ranges do not overlap. Markdown to stdout or --out;\n"
              "  --csv writes every matched point; --fail-on-change exits 4 when any point got worse.\n");
  std::string a, b, out, csv;
  size_t top = 30;
  bool all = false, fail = false;
  cli.app().add_option("A_DIR", a)->required();
  cli.app().add_option("B_DIR", b)->required();
  cli.add_output("--out", &out);
  cli.add_output("--csv", &csv);
  cli.app().add_option("--top", top)->check(positive_integer());
  cli.app().add_flag("--all", all);
  cli.app().add_flag("--fail-on-change", fail);
  cli.parse(argc, argv);
  for (const auto* d : {&a, &b})
    if (!std::filesystem::is_directory(*d)) cli.refuse("'" + *d + "' is not a folder");
  try {
    const FolderDiff d = compare_folders(a, b);
    const std::string md = compare_markdown(d, top, all);
    std::vector<std::pair<std::string, std::string>> files;
    if (out.empty()) std::fputs(md.c_str(), stdout);
    else files.emplace_back(out, md);
    if (!csv.empty()) files.emplace_back(csv, compare_csv(d));
    pk::write_files_atomically(files);
    int worse = 0;
    for (const auto& f : d.files) worse += f.worse();
    std::fprintf(stderr, "pkbench_compare: %zu files compared, %d changes beyond the noise (%d worse)%s\n",
                 d.files.size(), d.changes(), worse, out.empty() ? "" : (", wrote " + out).c_str());
    return fail && worse ? 4 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_compare: error: %s\n", e.what());
    return pk::exit_code_of(e);
  }
}
