#pragma once
// The command line of a sweep tool, declared once: its usage, its options with a value
// (--name VALUE or --name=VALUE), its flags and where its other arguments go. -h/--help is
// answered first (usage on stdout, exit 0); an unknown --option or an argument beyond
// `max_args` exits 2 naming it, before anything is done (microbench/harness/tool_cli.h).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "microbench/harness/tool_cli.h"

namespace pk::sweeps {

// Every member has an initializer: a tool names only what it has (designated initializers).
struct ToolLine {
  const char* usage = "";
  std::vector<std::pair<const char*, std::string*>> options = {};
  std::vector<std::pair<const char*, bool*>> flags = {};
  std::vector<std::string>* args = nullptr;
  size_t max_args = static_cast<size_t>(-1);
  const char* too_many = "";  // what the refusal of one argument too many says, e.g. "(one results folder)"
};

inline void parse_tool_line(int argc, char** argv, const ToolLine& line) {
  answer_help(argc, argv, line.usage);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    bool taken = false;
    for (const auto& [name, value] : line.options) taken = taken || option(argc, argv, i, name, value);
    for (const auto& [name, set] : line.flags)
      if (!taken && a == name) *set = taken = true;
    if (taken) continue;
    if (a.rfind("--", 0) == 0) usage_error(argv[0], "unknown option '" + a + "'", line.usage);
    if (!line.args || line.args->size() >= line.max_args)
      usage_error(argv[0], "unexpected argument '" + a + "' " + line.too_many, line.usage);
    line.args->push_back(a);
  }
}

}  // namespace pk::sweeps
