// pkbench_ep_summary: an ep CSV -> ep_summary.md (tables, SM sweep, targets) and ep_tuning.csv
// (the tuning table EpTuner::choose_ep reads) in OUT_DIR.
#include <memory>
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
  pk::ToolCli cli(argv[0], kUsage);
  const pk::SummaryArgs a = pk::summary_args(cli, argc, argv, "EP_CSV");
  return pk::write_study_summary(argv[0], a, "ep", [&] {
    auto d = std::make_shared<const pk::ep::EpData>(pk::ep::read_ep_csv(a.csv));
    return pk::SummaryOutput{pk::ep::summary_markdown(*d), d->virtual_ranks, [d, &a](const std::string& path) {
                               pk::ep::write_tuning_csv(path, pk::ep::tuning_rows(*d, a.allow_virtual));
                             }};
  });
}
