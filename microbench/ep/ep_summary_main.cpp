// pkbench_ep_summary: an ep CSV -> ep_summary.md (tables, SM sweep, targets) and ep_tuning.csv
// (the tuning table EpTuner::choose_ep reads) in OUT_DIR.
#include <cstdio>
#include <string>

#include "microbench/ep/ep_summary.h"
#include "microbench/ep/ep_tuning.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/harness/tidy_csv.h"

namespace {
const char* kUsage =
    "usage: pkbench_ep_summary EP_CSV OUT_DIR [--allow-virtual]\n"
    "  writes OUT_DIR/ep_summary.md and OUT_DIR/ep_tuning.csv (rows of virtual ranks: only with --allow-virtual,\n"
    "  the table then names the virtual machine)\n";
}

int main(int argc, char** argv) {
  pk::answer_help(argc, argv, kUsage);
  std::string csv, out;
  bool allow_virtual = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--allow-virtual") allow_virtual = true;
    else if (a.rfind("--", 0) == 0) pk::usage_error(argv[0], "unknown option '" + a + "'", kUsage);
    else if (csv.empty()) csv = a;
    else if (out.empty()) out = a;
    else pk::usage_error(argv[0], "one CSV and one folder (got '" + a + "' too)", kUsage);
  }
  if (csv.empty() || out.empty()) pk::usage_error(argv[0], "EP_CSV and OUT_DIR are needed", kUsage);
  pk::check_output_parent(argv[0], "OUT_DIR", out + "/x", kUsage);
  try {
    const pk::ep::EpData d = pk::ep::read_ep_csv(csv);
    pk::write_file_atomically(out + "/ep_summary.md", pk::ep::summary_markdown(d));
    if (!d.virtual_ranks || allow_virtual) {
      pk::ep::write_tuning_csv(out + "/ep_tuning.csv", pk::ep::tuning_rows(d, allow_virtual));
      std::printf("wrote %s/ep_summary.md and %s/ep_tuning.csv\n", out.c_str(), out.c_str());
    } else {
      std::printf("wrote %s/ep_summary.md (virtual ranks: no tuning table without --allow-virtual)\n", out.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
