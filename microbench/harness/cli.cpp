#include "microbench/harness/cli.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"

namespace pk {
namespace {

// CLI11's Range compares, and every comparison with NaN is false: NaN would pass any range
// (a warm-up loop bounded by it never ends). No flag of the suite takes a non-finite value.
// Only a value that is a number as a whole counts: "--csv=info.csv" is a file name, not inf.
bool non_finite(const std::string& v) {
  const char* b = v.c_str();
  char* end = nullptr;
  const double d = std::strtod(b, &end);
  if (end == b) return false;
  while (*end == ' ' || *end == '\t') ++end;
  return *end == '\0' && !std::isfinite(d);
}

}  // namespace

Cli::Cli(std::string program, std::string description) : program_(std::move(program)), app_(std::move(description)) {
  app_.name(program_);
  app_.footer(
      "Google Benchmark's flags (--benchmark_filter=REGEX, --benchmark_out=FILE --benchmark_out_format=json, ...) "
      "work as usual.\nExit codes: 0 done, 1 a point failed or a fatal error, 2 bad input (nothing ran), 3 no GPU.");
}

int Cli::parse(int* argc, char** argv, bool quiet) {
  std::vector<std::string> ours;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--benchmark_", 0) == 0 || a.rfind("--v=", 0) == 0) argv[out++] = argv[i];
    else ours.push_back(a);
  }
  *argc = out;
  argv[out] = nullptr;
  std::vector<std::string> reversed(ours.rbegin(), ours.rend());  // CLI11 takes them last-first
  try {
    app_.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    if (!quiet) std::printf("%s", app_.help().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    return bad_input(e.what(), quiet);
  } catch (const ArgError& e) {
    return bad_input(e.what(), quiet);
  }
  for (const CLI::Option* o : app_.get_options())
    for (const std::string& v : o->results())
      if (non_finite(v)) return bad_input(o->get_name() + "=" + v + ": not a finite number", quiet);
  return -1;
}

int Cli::bad_input(const std::string& what, bool quiet) const {
  if (!quiet) std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), what.c_str());
  return kExitBadInput;
}

namespace {
// A CLI11 validator from a parser that throws ArgError: its message, or "" when it parses.
CLI::Validator validator_of(void (*parse)(const std::string&), const char* name) {
  return CLI::Validator(
      [parse](std::string& s) -> std::string {
        try {
          parse(s);
        } catch (const ArgError& e) {
          return e.what();
        }
        return "";
      },
      name);
}
}  // namespace

CLI::Validator size_list_validator() {
  return validator_of([](const std::string& s) { parse_size_list(s); }, "SIZES");
}
CLI::Validator size_validator() {
  return validator_of([](const std::string& s) { parse_size(s); }, "SIZE");
}

void check_output_path(const std::string& path, const std::string& flag) {
  if (path.empty()) throw ArgError(flag + " is empty");
  // A newline or other control character would end up in command lines, logs and the CSV's
  // own metadata: refused as a typo.
  for (char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw ArgError(flag + ": the path holds a control character (a newline?): give a plain file name");
  // A folder would pass the probe below (path.tmp.<pid> lands beside it) and fail only at
  // the rename after the first point.
  struct stat st {};
  if (path.back() == '/' || (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
    throw ArgError(flag + "=" + path + ": is a folder; give a file name");
  // The file is written as path.tmp.<pid> and renamed: try exactly that.
  const std::string probe = path + ".tmp." + std::to_string(getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw ArgError(flag + "=" + path + ": cannot write there (" + std::strerror(errno) + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

}  // namespace pk
