// pkbench_compare: two results folders side by side, point by point, as ratios B / A,
// flagging only the changes beyond the measured noise (sweeps/compare.h).
//   pkbench_compare A_DIR B_DIR [--out FILE.md] [--csv FILE.csv] [--top N] [--all] [--fail-on-change]
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "sweeps/cli_util.h"
#include "sweeps/compare.h"

using namespace pk;
using namespace pk::sweeps;

int main(int argc, char** argv) {
  std::string out, csv, top_text;
  std::vector<std::string> dirs;
  bool all = false, fail = false;
  const Tool tool = parse_tool_line(
      argc, argv,
      {.options = {{"--out", &out}, {"--csv", &csv}, {"--top", &top_text}},
       .flags = {{"--all", &all}, {"--fail-on-change", &fail}},
       .args = &dirs,
       .max_args = 2,
       .too_many = "(two folders at most)",
       .usage =
           "usage: pkbench_compare A_DIR B_DIR [--out FILE.md] [--csv FILE.csv] [--top N] [--all] [--fail-on-change]\n"
           "  Compares every study CSV present in both folders (transfer.csv, sync.csv, gemm.csv, ...): B / A per point,\n"
           "  a change flagged only where the two sample ranges do not overlap. Markdown to stdout or --out;\n"
           "  --csv writes every matched point; --fail-on-change exits 4 when any point got worse.\n"});
  size_t top = 30;
  if (!top_text.empty()) {
    auto r = std::from_chars(top_text.data(), top_text.data() + top_text.size(), top);
    if (r.ec != std::errc() || r.ptr != top_text.data() + top_text.size() || top == 0)
      tool.refuse("--top=" + top_text + ": not a positive integer");
  }
  if (dirs.size() != 2) tool.refuse("two results folders are needed");
  const std::string &a = dirs[0], &b = dirs[1];
  for (const auto* d : {&a, &b})
    if (!std::filesystem::is_directory(*d)) tool.refuse("'" + *d + "' is not a folder");
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
