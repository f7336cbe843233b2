#pragma once
// Command lines of the plain tools (the studies' summaries and tools, the sweeps' tools), on
// CLI11 as the study binaries' are (harness/cli.h): ToolCli gives a tool a CLI::App for its
// operands and options; -h/--help prints the tool's usage and exits 0; a usage error prints
// "<program>: error: <what, naming the argument>" and the usage, and exits 2 before anything
// is done.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"

namespace pk {

class ToolCli {
 public:
  // usage: what -h/--help prints, and every refusal after its error line.
  ToolCli(const char* program, std::string usage);
  CLI::App& app() { return app_; }

  // Where an output goes, checked after parsing when given: the tools never create folders,
  // so a typo in a path is refused (exit 2) instead of becoming a new tree. A file's folder
  // (a file or a folder the tool may create) must exist; a folder the tool writes into must
  // exist itself.
  enum class Output { file, folder };
  // An option ("--out") or operand ("OUT.csv") naming an output.
  CLI::Option* add_output(const std::string& name, std::string* path, Output kind = Output::file);

  // Parses argv: help answered (exit 0), a bad argument refused (an unknown option, an operand
  // beyond those declared, a missing, empty ("--out=") or malformed value), then the outputs
  // checked.
  void parse(int argc, char** argv);
  // A usage error found after parsing: "<program>: error: <what>" and the usage, exit 2.
  [[noreturn]] void refuse(const std::string& what) const;

 private:
  struct OutputArg {
    CLI::Option* option;
    std::string* path;
    Output kind;
  };
  std::string program_, usage_;
  CLI::App app_;
  std::vector<OutputArg> outputs_;
};

// For a count (--top N, --ranks N): digits only, at least 1.
CLI::Validator positive_integer();

// A summary tool's markdown, made by make(): on stdout, or written (atomically) to `out` when
// given. Returns main's exit code: when make() throws, "argv0: error: ..." on stderr and 2
// for a CSV it could not read (CsvError), else 1.
template <class Make>
int emit_markdown(const char* argv0, const std::string& out, Make make) {
  try {
    const std::string md = make();
    if (out.empty()) std::fwrite(md.data(), 1, md.size(), stdout);
    else pk::write_file_atomically(out, md);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, e.what());
    return exit_code_of(e);
  }
}

// A study's summary tool: CSV OUT_DIR [--allow-virtual], and the options the tool gave `cli`
// before. `csv` names the first operand ("EP_CSV"); both operands are needed, OUT_DIR a folder
// that exists (usage errors exit 2).
struct SummaryArgs {
  std::string csv, out;
  bool allow_virtual = false;
};
inline SummaryArgs summary_args(ToolCli& cli, int argc, char** argv, const std::string& csv) {
  SummaryArgs a;
  cli.app().add_option(csv, a.csv);
  cli.add_output("OUT_DIR", &a.out, ToolCli::Output::folder);
  cli.app().add_flag("--allow-virtual", a.allow_virtual);
  cli.parse(argc, argv);
  if (a.csv.empty() || a.out.empty()) cli.refuse(csv + " and OUT_DIR are needed");
  return a;
}

// What a study's summary tool writes: OUT_DIR/<study>_summary.md, and OUT_DIR/<study>_tuning.csv
// through write_tuning unless the rows are of virtual ranks and --allow-virtual is not given.
struct SummaryOutput {
  std::string markdown;
  bool virtual_ranks = false;
  std::function<void(const std::string& path)> write_tuning;
};
// Writes make()'s output and says what it wrote; main's exit code, with "argv0: error: ..." on
// stderr, when anything throws: exit_code_of (2 for a CSV it cannot read, else 1).
inline int write_study_summary(const char* argv0, const SummaryArgs& a, const std::string& study,
                               const std::function<SummaryOutput()>& make) {
  try {
    const SummaryOutput o = make();
    const std::string md = a.out + "/" + study + "_summary.md", tuning = a.out + "/" + study + "_tuning.csv";
    write_file_atomically(md, o.markdown);
    if (!o.virtual_ranks || a.allow_virtual) {
      o.write_tuning(tuning);
      std::printf("wrote %s and %s\n", md.c_str(), tuning.c_str());
    } else {
      std::printf("wrote %s (virtual ranks: no tuning table without --allow-virtual)\n", md.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, e.what());
    return exit_code_of(e);
  }
}

}  // namespace pk
