// pkbench_peer_modes: the same studies run in several peer modes (single, ipc, vmm), side
// by side. Reads each compared study's CSV of every MODE_DIR (StudyParts::peer_modes: the
// transfer and sync studies) and writes a markdown comparison, each study's table as ratios to
// the first mode, with the studies' targets (sweeps/targets.cpp).
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
  ToolCli cli(argv[0], kUsage);
  std::string out;
  std::vector<std::string> mode_dirs;
  cli.add_output("OUT.md", &out)->required();
  cli.app().add_option("MODE=DIR", mode_dirs)->required()->expected(-2);  // two at least
  cli.parse(argc, argv);
  std::vector<std::pair<std::string, std::string>> args;
  for (const std::string& a : mode_dirs) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) cli.refuse("'" + a + "' is not MODE=DIR");
    // The modes of --peer-mode (harness/peer_group.h's peer_mode_names(); the sweeps do not link
    // the CUDA harness, so the list is repeated here and the refusal says which it takes).
    static const std::vector<std::string> kModes = {"single", "ipc", "vmm", "virtual"};
    const std::string mode = a.substr(0, eq);
    if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end())
      cli.refuse("'" + a + "': unknown peer mode '" + mode + "' (single, ipc, vmm or virtual)");
    for (const auto& [seen, dir] : args)
      if (seen == mode) cli.refuse("'" + a + "': peer mode '" + mode + "' given twice");
    if (!std::filesystem::is_directory(a.substr(eq + 1))) cli.refuse("'" + a + "': no such folder '" + a.substr(eq + 1) + "'");
    args.push_back({a.substr(0, eq), a.substr(eq + 1)});
  }
  try {
    std::vector<ModeResults> modes;
    for (const auto& [name, dir] : args) modes.push_back(load_mode(name, dir));
    std::vector<TargetResult> targets;
    const std::string md = peer_modes_markdown(modes, &targets);
    pk::write_file_atomically(out, md);
    int met = 0;
    for (const auto& t : targets) met += t.verdict == Verdict::met;
    std::printf("wrote %s: %d of %zu targets met\n", out.c_str(), met, targets.size());
    for (const auto& t : targets) std::printf("  %s\n", t.sentence().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return pk::exit_code_of(e);
  }
}
