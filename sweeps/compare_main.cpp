// pkbench_compare: two results folders side by side, point by point, as ratios B / A,
// flagging only the changes beyond the measured noise (sweeps/compare.h).
//   pkbench_compare A_DIR B_DIR [--out FILE.md] [--csv FILE.csv] [--top N] [--all] [--fail-on-change]
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "sweeps/compare.h"

using namespace pk;
using namespace pk::sweeps;

static const char* kUsage =
    "usage: pkbench_compare A_DIR B_DIR [--out FILE.md] [--csv FILE.csv] [--top N] [--all] [--fail-on-change]\n"
    "  Compares every study CSV present in both folders (transfer.csv, sync.csv, gemm.csv, ...): B / A per point,\n"
    "  a change flagged only where the two sample ranges do not overlap. Markdown to stdout or --out;\n"
    "  --csv writes every matched point; --fail-on-change exits 4 when any point got worse.\n";

int main(int argc, char** argv) {
  answer_help(argc, argv, kUsage);
  std::string a, b, out, csv, top_text;
  size_t top = 30;
  bool all = false, fail = false;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (option(argc, argv, i, "--out", &out) || option(argc, argv, i, "--csv", &csv)) continue;
    if (option(argc, argv, i, "--top", &top_text)) {
      auto r = std::from_chars(top_text.data(), top_text.data() + top_text.size(), top);
      if (r.ec != std::errc() || r.ptr != top_text.data() + top_text.size() || top == 0)
        usage_error(argv[0], "--top=" + top_text + ": not a positive integer", kUsage);
      continue;
    }
    if (s == "--all") all = true;
    else if (s == "--fail-on-change") fail = true;
    else if (s.rfind("--", 0) == 0) usage_error(argv[0], "unknown option '" + s + "'", kUsage);
    else if (a.empty()) a = s;
    else if (b.empty()) b = s;
    else usage_error(argv[0], "unexpected argument '" + s + "' (two folders at most)", kUsage);
  }
  if (a.empty() || b.empty()) usage_error(argv[0], "two results folders are needed", kUsage);
  for (const auto* d : {&a, &b})
    if (!std::filesystem::is_directory(*d)) usage_error(argv[0], "'" + *d + "' is not a folder", kUsage);
  try {
    const FolderDiff d = compare_folders(a, b);
    const std::string md = compare_markdown(d, top, all);
    if (out.empty()) std::fputs(md.c_str(), stdout);
    else pk::write_file_atomically(out, md);
    if (!csv.empty()) pk::write_file_atomically(csv, compare_csv(d));
    int worse = 0;
    for (const auto& f : d.files) worse += f.worse();
    std::fprintf(stderr, "pkbench_compare: %zu files compared, %d changes beyond the noise (%d worse)%s\n",
                 d.files.size(), d.changes(), worse, out.empty() ? "" : (", wrote " + out).c_str());
    return fail && worse ? 4 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_compare: error: %s\n", e.what());
    return 1;
  }
}
