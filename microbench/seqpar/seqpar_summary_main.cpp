// pkbench_seqpar_summary: a seqpar CSV (and pkbench_collectives' ulysses CSVs) ->
// seqpar_summary.md (the ring's table, the Ulysses collectives, the targets) and
// seqpar_tuning.csv (the best schedule and split per (S, heads, ranks): choose_seqpar) in OUT_DIR.
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
  std::vector<std::string> ulysses;
  pk::ToolCli cli(argv[0], kUsage);
  cli.app().add_option("--ulysses", ulysses)->allow_extra_args(false);  // one CSV per --ulysses
  const pk::SummaryArgs a = pk::summary_args(cli, argc, argv, "SEQPAR_CSV");
  return pk::write_study_summary(argv[0], a, "seqpar", [&] {
    const pk::seqpar::RingData d = pk::seqpar::read_ring_csv(a.csv);
    const auto ring = pk::seqpar::ring_results(d);
    const auto u = pk::seqpar::read_ulysses(ulysses);
    return pk::SummaryOutput{pk::seqpar::summary_markdown(d, ring, u), d.virtual_ranks, [ring](const std::string& path) {
                               pk::write_file_atomically(path, pk::seqpar::tuning_csv(ring));
                             }};
  });
}
