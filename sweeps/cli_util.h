#pragma once
// The command line of a sweep tool, declared once: its options with a value (--name VALUE or
// --name=VALUE), its flags, where its other arguments go, and its usage. -h/--help is
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
  std::vector<std::pair<const char*, std::string*>> options = {};
  std::vector<std::pair<const char*, bool*>> flags = {};
  std::vector<std::string>* args = nullptr;
  size_t max_args = static_cast<size_t>(-1);
  const char* too_many = "";  // what the refusal of one argument too many says, e.g. "(one results folder)"
  const char* usage = "";
};

// A parsed command line: what a tool refuses after parsing goes out the same way (exit 2,
// "<program>: error: <what>" and the usage).
class Tool {
 public:
  Tool(const char* program, const char* usage) : program_(program), usage_(usage) {}
  [[noreturn]] void refuse(const std::string& what) const { usage_error(program_, what, usage_); }

 private:
  const char* program_;
  const char* usage_;
};

inline Tool parse_tool_line(int argc, char** argv, const ToolLine& line) {
  const Tool tool(argv[0], line.usage);
  answer_help(argc, argv, line.usage);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    bool taken = false;
    for (const auto& [name, value] : line.options) taken = taken || option(argc, argv, i, name, value);
    for (const auto& [name, set] : line.flags)
      if (!taken && a == name) *set = taken = true;
    if (taken) continue;
    if (a.rfind("--", 0) == 0) tool.refuse("unknown option '" + a + "'");
    if (!line.args || line.args->size() >= line.max_args) tool.refuse("unexpected argument '" + a + "' " + line.too_many);
    line.args->push_back(a);
  }
  return tool;
}

}  // namespace pk::sweeps
