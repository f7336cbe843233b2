#include "microbench/harness/tool_cli.h"

#include <cstdlib>
#include <filesystem>

#include "microbench/harness/cli.h"

namespace pk {

ToolCli::ToolCli(const char* program, std::string usage) : program_(program), usage_(std::move(usage)) {
  app_.name(program_);
  // What CLI11 does not take is refused here, named: "unknown option '--x'" reads better than
  // CLI11's list of arguments not expected.
  app_.allow_extras(true);
}

CLI::Option* ToolCli::add_output(const std::string& name, std::string* path, Output kind) {
  CLI::Option* o = app_.add_option(name, *path);
  outputs_.push_back({o, path, kind});
  return o;
}

void ToolCli::parse(int argc, char** argv) {
  // CLI11 reads "--out=" (nothing after '=') as "--out" and takes the next argument as its
  // value ("--out= --csv=x.csv" would write a file named "--csv=x.csv"): refused, named.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a.size() > 3 && a.rfind("--", 0) == 0 && a.find('=') == a.size() - 1) refuse(a.substr(0, a.size() - 1) + " is empty");
  }
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", usage_.c_str());
    std::exit(0);
  } catch (const CLI::ParseError& e) {
    refuse(e.what());
  }
  if (!app_.remaining().empty()) {
    const std::string a = app_.remaining().front();
    refuse((a.size() > 1 && a[0] == '-' ? "unknown option '" : "unexpected argument '") + a + "'");
  }
  namespace fs = std::filesystem;
  for (const OutputArg& o : outputs_) {
    if (!o.option->count()) continue;
    const std::string& path = *o.path;
    const std::string what = o.option->get_name();
    if (path.empty()) refuse(what + " is empty");
    fs::path p(path);
    if (!p.has_filename()) p = p.parent_path();  // "dir/" names dir
    const fs::path folder = o.kind == Output::folder ? p : p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
      refuse(what + "=" + path + ": folder '" + folder.string() + "' does not exist");
  }
}

void ToolCli::refuse(const std::string& what) const {
  std::fprintf(stderr, "%s: error: %s\n%s", program_.c_str(), what.c_str(), usage_.c_str());
  std::exit(kExitBadInput);
}

CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.find_first_not_of('0') == std::string::npos)
          return "'" + s + "' is not a positive integer";
        return "";
      },
      "N");
}

}  // namespace pk
