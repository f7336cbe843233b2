// pkbench_ep_ref: DeepEP's figures (its test logs, deepep.sh) beside the ep CSV's rows of the
// same shape; the CSV rewritten in place (atomically). Exit 1 when no row matched.
#include <cstdio>
#include <string>

#include "microbench/ep/ep_ref.h"
#include "microbench/harness/tool_cli.h"

namespace {
const char* kUsage =
    "usage: pkbench_ep_ref EP_CSV --ranks N [--version V] [--intranode LOG] [--low-latency LOG --ll-tokens T]\n"
    "  LOG: the output of DeepEP's tests/test_intranode.py / tests/test_low_latency.py run on N processes\n";
}

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string csv, intranode, ll, version = "?";
  int n = 0, t = 0;
  cli.app().add_option("EP_CSV", csv)->required();
  cli.app().add_option("--ranks", n)->required()->check(pk::positive_integer());
  cli.app().add_option("--version", version);
  cli.app().add_option("--intranode", intranode);
  CLI::Option* tokens = cli.app().add_option("--ll-tokens", t)->check(pk::positive_integer());
  cli.app().add_option("--low-latency", ll)->needs(tokens);
  cli.parse(argc, argv);
  if (intranode.empty() && ll.empty()) cli.refuse("--intranode or --low-latency is needed");
  try {
    pk::ep::DeepEpFigures f;
    if (!intranode.empty()) pk::ep::parse_deepep_intranode(intranode, f);
    if (!ll.empty()) pk::ep::parse_deepep_low_latency(ll, t, f);
    const int merged = pk::ep::merge_deepep(csv, f, n, version);
    std::printf("%s: DeepEP %s figures beside %d row(s)\n", csv.c_str(), version.c_str(), merged);
    return merged > 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
