// pkbench_peer_modes: the same studies run in several peer modes (single, ipc, vmm), side
// by side. Reads MODE_DIR/transfer.csv and MODE_DIR/sync.csv for each mode and writes a
// markdown comparison: every mechanism's peak and fewest SMs to 90 % of it, and every
// cross-GPU latency, as ratios to the first mode, with the targets (sweeps/targets.cpp).
//   pkbench_peer_modes OUT.md single=DIR ipc=DIR vmm=DIR
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "sweeps/targets.h"

using namespace pk;
using namespace pk::sweeps;

static const char* kUsage = "usage: pkbench_peer_modes OUT.md MODE=DIR MODE=DIR [...]\n  (the first mode is the reference)\n";

int main(int argc, char** argv) {
  answer_help(argc, argv, kUsage);
  if (argc < 4) usage_error(argv[0], "an output and at least two MODE=DIR are needed", kUsage);
  check_output_parent(argv[0], "OUT.md", argv[1], kUsage);
  std::vector<std::pair<std::string, std::string>> args;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "%s: error: '%s' is not MODE=DIR\n", argv[0], a.c_str());
      return 2;
    }
    // The modes of --peer-mode (harness/peer_group.h's peer_mode_names(); the sweeps do not link
    // the CUDA harness, so the list is repeated here and the refusal says which it takes).
    static const std::vector<std::string> kModes = {"single", "ipc", "vmm", "virtual"};
    const std::string mode = a.substr(0, eq);
    if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end()) {
      std::fprintf(stderr, "%s: error: '%s': unknown peer mode '%s' (single, ipc, vmm or virtual)\n", argv[0], a.c_str(),
                   mode.c_str());
      return 2;
    }
    for (const auto& [seen, dir] : args)
      if (seen == mode) {
        std::fprintf(stderr, "%s: error: '%s': peer mode '%s' given twice\n", argv[0], a.c_str(), mode.c_str());
        return 2;
      }
    if (!std::filesystem::is_directory(a.substr(eq + 1))) {
      std::fprintf(stderr, "%s: error: '%s': no such folder '%s'\n", argv[0], a.c_str(), a.substr(eq + 1).c_str());
      return 2;
    }
    args.push_back({a.substr(0, eq), a.substr(eq + 1)});
  }
  try {
    std::vector<ModeResults> modes;
    for (const auto& [name, dir] : args) modes.push_back(load_mode(name, dir));
    std::vector<TargetResult> targets;
    const std::string md = peer_modes_markdown(modes, &targets);
    pk::write_file_atomically(argv[1], md);
    int met = 0;
    for (const auto& t : targets) met += t.verdict == Verdict::met;
    std::printf("wrote %s: %d of %zu targets met\n", argv[1], met, targets.size());
    for (const auto& t : targets) std::printf("  %s\n", t.sentence().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
