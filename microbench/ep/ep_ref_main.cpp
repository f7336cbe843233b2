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
  pk::answer_help(argc, argv, kUsage);
  std::string csv, intranode, ll, ranks, version = "?", ll_tokens;
  for (int i = 1; i < argc; ++i) {
    if (pk::option(argc, argv, i, "--intranode", &intranode) || pk::option(argc, argv, i, "--low-latency", &ll) ||
        pk::option(argc, argv, i, "--ranks", &ranks) || pk::option(argc, argv, i, "--version", &version) ||
        pk::option(argc, argv, i, "--ll-tokens", &ll_tokens))
      continue;
    const std::string a = argv[i];
    if (a.rfind("--", 0) == 0) pk::usage_error(argv[0], "unknown option '" + a + "'", kUsage);
    if (!csv.empty()) pk::usage_error(argv[0], "one CSV (got '" + a + "' too)", kUsage);
    csv = a;
  }
  auto positive = [&](const std::string& v, const char* flag) {
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1)
      pk::usage_error(argv[0], std::string(flag) + "='" + v + "': a positive integer", kUsage);
    return std::stoi(v);
  };
  if (csv.empty()) pk::usage_error(argv[0], "EP_CSV is needed", kUsage);
  if (intranode.empty() && ll.empty()) pk::usage_error(argv[0], "--intranode or --low-latency is needed", kUsage);
  const int n = positive(ranks, "--ranks");
  const int t = ll.empty() ? 0 : positive(ll_tokens, "--ll-tokens");
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
