// pkbench_report: results/<machine>/REPORT.md from the CSVs of the folder.
//   pkbench_report RESULTS_DIR [--other OTHER_RESULTS_DIR] [--out FILE]
#include <cstdio>
#include <filesystem>
#include <string>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "sweeps/report.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;

static const char* kUsage =
    "usage: pkbench_report RESULTS_DIR [--other OTHER_RESULTS_DIR] [--out FILE]\n"
    "  writes RESULTS_DIR/REPORT.md (or FILE): environment, figures, the paper's claims beside this machine's\n"
    "  numbers (and OTHER's), the transfer tuning table, every target met or missed.\n";

int main(int argc, char** argv) {
  std::string dir, other, out;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "-h" || s == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (option(argc, argv, i, "--other", &other) || option(argc, argv, i, "--out", &out)) continue;
    if (s.rfind("--", 0) == 0) usage_error(argv[0], "unknown option '" + s + "'", kUsage);
    if (!dir.empty()) usage_error(argv[0], "unexpected argument '" + s + "' (one results folder)", kUsage);
    dir = s;
  }
  if (dir.empty()) usage_error(argv[0], "no RESULTS_DIR given", kUsage);
  if (!fs::is_directory(dir)) usage_error(argv[0], "'" + dir + "' is not a folder", kUsage);
  if (!other.empty() && !fs::is_directory(other)) usage_error(argv[0], "--other=" + other + ": not a folder", kUsage);
  if (out.empty()) out = dir + "/REPORT.md";
  try {
    const ResultsFolder here = load_results(dir);
    ResultsFolder there;
    if (!other.empty()) there = load_results(other);
    const std::string cmd = "pkbench_report " + fs::path(dir).lexically_normal().string() +
                            (other.empty() ? "" : " --other " + fs::path(other).lexically_normal().string());
    const std::string md = report_markdown(here, other.empty() ? nullptr : &there, cmd);
    pk::write_file_atomically(out, md);
    std::printf("wrote %s (%s: %s)\n", out.c_str(), here.machine_key().c_str(),
                target_count_text(all_targets(here)).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_report: error: %s\n", e.what());
    return 1;
  }
}
