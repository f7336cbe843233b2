// pkbench_merge: concatenates CSVs of one study and one machine into one (the parts that
// scripts/reproduce.sh runs one step at a time), after reading every part with the
// study's declaration: same header, same study, same machine, every value well formed.
// A part named twice, or a row repeated from an earlier part, is refused (never merged
// twice, never silently dropped).
//   pkbench_merge OUT.csv PART.csv...
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/csv_table.h"
#include "microbench/harness/tool_cli.h"
#include "sweeps/study_schema.h"

using namespace pk;
using namespace pk::sweeps;

static const char* kUsage =
    "usage: pkbench_merge OUT.csv PART.csv...\n"
    "  one study, one machine; a part named twice or a row repeated across parts is refused\n";

int main(int argc, char** argv) {
  ToolCli cli(argv[0], kUsage);
  std::string out;
  std::vector<std::string> parts;
  cli.add_output("OUT.csv", &out)->required();
  cli.app().add_option("PART.csv", parts)->required();
  cli.parse(argc, argv);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!std::filesystem::is_regular_file(parts[i])) cli.refuse("'" + parts[i] + "': no such file");
    for (size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (std::filesystem::equivalent(parts[i], parts[j], ec))
        cli.refuse("'" + parts[i] + "' and '" + parts[j] + "' are the same part: its rows would count twice");
    }
  }
  try {
    std::string merged, header_line;
    std::vector<std::string> header;
    std::string study;
    Machine machine;
    size_t rows = 0;
    // Every data row, where it was first seen: a copied part has identical rows (same
    // timestamps), which a merge must not count twice.
    std::unordered_map<std::string, std::string> seen;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      // Every header column as text: the study's declaration checks the names, one_machine the rows.
      std::vector<Field> f;
      for (const auto& h : peek_csv(part).header) f.push_back({h});
      const CsvTable t = CsvTable::read(part, f, checked_as(""));
      if (i == 0) {
        header = t.header();
        study = t.study();
        machine = t.machine();
      } else {
        if (t.header() != header)
          throw pk::CsvError(part + ":1: header differs from " + parts[0] + "'s");
        if (t.study() != study)
          throw pk::CsvError(part + ": a " + t.study() + " CSV, " + parts[0] + " is a " + study + " one");
        if (t.rows() && (t.machine().key() != machine.key() || t.machine().host != machine.host))
          throw pk::CsvError(part + ": rows of " + t.machine().describe() + ", " + parts[0] +
                                   " has " + machine.describe() + ": one machine per file");
      }
      std::ifstream in(part, std::ios::binary);
      std::string line;
      bool first = true;
      size_t line_no = 0;
      while (std::getline(in, line)) {
        ++line_no;
        if (first) {
          first = false;
          if (i == 0) merged += line + "\n";
          continue;
        }
        if (!line.empty()) {
          const std::string at = part + ":" + std::to_string(line_no);
          if (auto [it, fresh] = seen.emplace(line, at); !fresh)
            throw pk::CsvError(at + ": the same row as " + it->second + ": a part given twice?");
          merged += line + "\n";
          ++rows;
        }
      }
    }
    pk::write_file_atomically(out, merged);
    std::printf("wrote %s: %zu rows from %zu parts (%s, %s)\n", out.c_str(), rows, parts.size(), study.c_str(),
                machine.describe().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_merge: error: %s\n", e.what());
    return pk::exit_code_of(e);
  }
}
