#pragma once
// Small helpers shared by the sweep tools' command lines: a usage error exits 2 before
// anything is done, naming the argument.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pk::sweeps {

[[noreturn]] inline void usage_error(const char* argv0, const std::string& what, const char* usage) {
  std::fprintf(stderr, "%s: error: %s\n%s", argv0, what.c_str(), usage);
  std::exit(2);
}

// "--name=value" or "--name value" at argv[i]; advances i for the second form.
inline bool option(int argc, char** argv, int& i, const std::string& name, std::string* value) {
  const std::string a = argv[i];
  if (a == name) {
    if (i + 1 >= argc) return false;
    *value = argv[++i];
    return true;
  }
  if (a.rfind(name + "=", 0) == 0) {
    *value = a.substr(name.size() + 1);
    return true;
  }
  return false;
}

}  // namespace pk::sweeps
