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

int main(int argc, char** argv) {
  std::string dir, other, out;
  bool harness_cost = false;
  ToolCli cli(argv[0],
              "usage: pkbench_report RESULTS_DIR [--other OTHER_RESULTS_DIR] [--out FILE]\n"
              "       pkbench_report --harness-cost RESULTS_DIR\n"
              "  writes RESULTS_DIR/REPORT.md (or FILE): environment, figures, the paper's claims beside this machine's\n"
              "  numbers (and OTHER's), each study's section, the harness cost per point, every target met or\n"
              "  missed. --harness-cost prints only the harness cost per point (wall minus timed ms, median and p90)\n"
              "  of every CSV under RESULTS_DIR that has the point-cost columns, and writes nothing.\n");
  cli.app().add_option("RESULTS_DIR", dir);
  cli.app().add_option("--other", other);
  cli.add_output("--out", &out);
  cli.app().add_flag("--harness-cost", harness_cost);
  cli.parse(argc, argv);
  if (dir.empty()) cli.refuse("no RESULTS_DIR given");
  if (!fs::is_directory(dir)) cli.refuse("'" + dir + "' is not a folder");
  if (!other.empty() && !fs::is_directory(other)) cli.refuse("--other=" + other + ": not a folder");
  if (harness_cost && !(other.empty() && out.empty())) cli.refuse("--harness-cost writes nothing: no --other or --out");
  if (out.empty()) out = dir + "/REPORT.md";
  try {
    if (harness_cost) {
      const auto costs = point_costs_in(dir);
      if (costs.empty()) throw CsvError("no CSV under " + dir + " has the point-cost columns (harness_ms)");
      std::printf("%s", point_cost_table(costs).c_str());
      return 0;
    }
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
    return pk::exit_code_of(e);
  }
}
