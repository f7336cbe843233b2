// pkbench_seqpar_summary: a seqpar CSV (and pkbench_collectives' ulysses CSVs) ->
// seqpar_summary.md (the ring's table, the Ulysses collectives, the targets) and
// seqpar_tuning.csv (the best schedule and split per (S, heads, ranks): choose_seqpar) in OUT_DIR.
#include <cstdio>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/seqpar/seqpar_summary.h"

namespace {
const char* kUsage =
    "usage: pkbench_seqpar_summary SEQPAR_CSV OUT_DIR [--ulysses COLLECTIVES_CSV]... [--allow-virtual]\n"
    "  writes OUT_DIR/seqpar_summary.md and OUT_DIR/seqpar_tuning.csv (rows of virtual ranks: only with --allow-virtual)\n";
}

int main(int argc, char** argv) {
  pk::answer_help(argc, argv, kUsage);
  std::string csv, out;
  std::vector<std::string> ulysses;
  bool allow_virtual = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--allow-virtual") allow_virtual = true;
    else if (a == "--ulysses" && i + 1 < argc) ulysses.push_back(argv[++i]);
    else if (a.rfind("--", 0) == 0) pk::usage_error(argv[0], "unknown option '" + a + "'", kUsage);
    else if (csv.empty()) csv = a;
    else if (out.empty()) out = a;
    else pk::usage_error(argv[0], "one CSV and one folder (got '" + a + "' too)", kUsage);
  }
  if (csv.empty() || out.empty()) pk::usage_error(argv[0], "SEQPAR_CSV and OUT_DIR are needed", kUsage);
  pk::check_output_parent(argv[0], "OUT_DIR", out + "/x", kUsage);
  try {
    const pk::seqpar::RingData d = pk::seqpar::read_ring_csv(csv);
    const auto ring = pk::seqpar::ring_results(d);
    const auto u = pk::seqpar::read_ulysses(ulysses);
    pk::write_file_atomically(out + "/seqpar_summary.md", pk::seqpar::summary_markdown(d, ring, u));
    if (!d.virtual_ranks || allow_virtual) {
      pk::write_file_atomically(out + "/seqpar_tuning.csv", pk::seqpar::tuning_csv(ring));
      std::printf("wrote %s/seqpar_summary.md and %s/seqpar_tuning.csv\n", out.c_str(), out.c_str());
    } else {
      std::printf("wrote %s/seqpar_summary.md (virtual ranks: no tuning table without --allow-virtual)\n", out.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
