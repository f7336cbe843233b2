#pragma once
// Command lines of the study binaries: CLI11 for the flags, Google Benchmark's own flags
// (--benchmark_*) passed through untouched, and one exit-code convention:
//   0 --help or --list, 2 a bad flag (named, before anything runs), 3 no GPU.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace pk {

constexpr int kExitBadInput = 2;
constexpr int kExitNoGpu = 3;

class Cli {
 public:
  Cli(std::string program, std::string description);
  CLI::App& app() { return app_; }
  const std::string& program() const { return program_; }
  // Splits argv: --benchmark_* (and --v=) stay in argv for Google Benchmark, the rest go
  // to CLI11. Returns -1 to go on, else the exit code (help printed, or the error printed
  // as "<program>: error: ..." with the flag named).
  // quiet: print nothing (ranks other than 0 of an MPI run).
  int parse(int* argc, char** argv, bool quiet = false);
  // Prints "<program>: error: <what>" and returns kExitBadInput.
  int bad_input(const std::string& what, bool quiet = false) const;

 private:
  std::string program_;
  CLI::App app_;
};

// CLI11 validators over the size/list grammar of args.h.
CLI::Validator size_list_validator();
CLI::Validator size_validator();

// ArgError naming `flag` unless a file can be created at `path` (its folder exists and is
// writable): checked before a study runs, so a typo never costs a whole run.
void check_output_path(const std::string& path, const std::string& flag);

// Google Benchmark's console output with colour only on a terminal, so logs are plain text.
bool stdout_is_terminal();

}  // namespace pk
