// pkbench_transfer_ref: nvbandwidth's own figures merged into a transfer CSV as the reference
// columns of the rows that have a counterpart among its testcases (transfer_ref.h: ref_tool,
// ref_gbps, ref_ratio = gbps / the tool's figure), and the ratios printed.
//   pkbench_transfer_ref --plan --csv=transfer.csv [--buffer=512M]
//       the testcases to run, one line, space-separated (nvbandwidth -t ...); exit 1 if none
//   pkbench_transfer_ref --csv=transfer.csv [--out=FILE] [--buffer=512M] --nvbandwidth=FILE ...
//       FILE: nvbandwidth's --json output, run with -b = --buffer (in MiB); several files (the
//       tool run repeatedly): the median of their figures
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microbench/harness/args.h"
#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/transfer/transfer_grid.h"
#include "microbench/transfer/transfer_ref.h"

using namespace pk::transfer;

namespace {

const char* kUsage =
    "usage: pkbench_transfer_ref --csv=FILE [--out=FILE] [--buffer=SIZE] --nvbandwidth=FILE ...\n"
    "       pkbench_transfer_ref --plan --csv=FILE [--buffer=SIZE]\n"
    "  merges nvbandwidth's --json output (run with -b = --buffer in MiB, default 512M) into the\n"
    "  transfer rows with a counterpart (ref_tool, ref_gbps, ref_ratio = gbps / the tool's figure);\n"
    "  --plan prints the testcases those rows have counterparts in\n";

// An input refused once read (a CSV or a file of the tool's): main prints it with the usage
// and exits 2.
struct Refused {
  std::string why;
};

// A bandwidth cell: a finite number, not negative (strtod alone takes "nan", "inf", "-3").
bool is_number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) && v >= 0;
}

struct Csv {
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  int gpus = 0;  // the GPUs of the run that wrote it (its gpu_count metadata column; 0 if absent)
};

// A transfer CSV through the studies' one reader (harness/csv_table.h: read in blocks, a line
// longer than kMaxCsvLineBytes refused, one study and one machine), every column kept as text to
// be written back unchanged; gbps, which this tool reads as a number, checked here with its line.
Csv read_csv(const std::string& path) {
  std::vector<pk::Field> fields;
  const std::vector<std::string> need = {"study",   "mechanism",    "direction", "pattern", "src_gpu", "dst_gpu",
                                         "message_bytes", "bytes_per_op", "flows", "gpus_used", "gbps", "status"};
  for (const auto& n : need) fields.push_back({n});
  pk::CsvTable t;
  try {
    for (const auto& h : pk::peek_csv(path).header)
      if (std::find(need.begin(), need.end(), h) == need.end()) fields.push_back({h, pk::ColumnType::text, false});
    pk::ReadOptions o;
    o.study = "transfer";
    t = pk::CsvTable::read(path, fields, o);
  } catch (const pk::CsvError& e) {  // names the file, its line and field
    throw Refused{std::string("--csv: ") + e.what()};
  }
  Csv csv;
  csv.header = t.header();
  csv.gpus = t.machine().gpu_count;
  for (const char* ref : {"ref_tool", "ref_gbps", "ref_ratio"})  // a CSV written before them gets them
    if (std::find(csv.header.begin(), csv.header.end(), ref) == csv.header.end()) csv.header.push_back(ref);
  for (size_t i = 0; i < t.rows(); ++i) {
    CsvRow r;
    for (const auto& h : t.header()) r[h] = std::string(t.text(i, h));
    const std::string at = "--csv=" + path + ": line " + std::to_string(t.line_of(i)) + ": ";
    if (!r["gbps"].empty() && !is_number(r["gbps"])) throw Refused{at + "gbps '" + r["gbps"] + "' is not a number of 0 or more"};
    csv.rows.push_back(std::move(r));
  }
  return csv;
}

std::string csv_text(const Csv& csv) {  // csv_line ends each line itself
  std::string s = pk::csv_line(csv.header);
  for (const CsvRow& r : csv.rows) {
    std::vector<std::string> cells;
    for (const auto& h : csv.header) cells.push_back(r.count(h) ? r.at(h) : "");
    s += pk::csv_line(cells);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string csv_path, out, buffer = "512M";
  std::vector<std::string> files;
  bool plan = false;
  cli.app().add_option("--csv", csv_path);
  cli.add_output("--out", &out);
  cli.app().add_option("--buffer", buffer);
  cli.app().add_option("--nvbandwidth", files)->allow_extra_args(false);  // one file per --nvbandwidth
  cli.app().add_flag("--plan", plan);
  cli.parse(argc, argv);
  if (csv_path.empty()) cli.refuse("--csv: missing");
  uint64_t bytes = 0;
  try {
    bytes = pk::parse_size(buffer);
  } catch (const std::exception& e) {
    cli.refuse("--buffer=" + buffer + ": " + e.what());
  }
  if (bytes == 0 || bytes % (1ull << 20)) cli.refuse("--buffer=" + buffer + ": whole MiB (nvbandwidth's -b)");
  if (!plan && files.empty()) cli.refuse("--nvbandwidth: missing");
  try {
    Csv csv = read_csv(csv_path);
    if (plan) {
      const auto tcs = nvbandwidth_testcases(csv.rows, bytes, csv.gpus);
      for (size_t k = 0; k < tcs.size(); ++k) std::printf("%s%s", k ? " " : "", tcs[k].c_str());
      std::printf("\n");
      return tcs.empty() ? 1 : 0;
    }
    std::vector<NvbRun> runs;
    for (const auto& f : files) {
      std::ifstream t(f);
      if (!t) throw Refused{"--nvbandwidth=" + f + ": cannot read"};
      std::stringstream text;
      text << t.rdbuf();
      try {
        runs.push_back(parse_nvbandwidth_json(text.str()));
      } catch (const std::exception& e) {
        throw Refused{"--nvbandwidth=" + f + ": " + e.what()};
      }
      runs.back().buffer_bytes = bytes;
    }
    const int filled = merge_nvbandwidth(csv.rows, runs);
    pk::write_file_atomically(out.empty() ? csv_path : out, csv_text(csv));
    std::printf("%-10s %-6s %-10s %-5s %-8s %10s %10s %8s  %s\n", "mechanism", "dir", "pattern", "gpus", "sweep", "gbps",
                "tool_gbps", "ratio", "tool");
    for (auto& r : csv.rows)
      if (!r["ref_tool"].empty())
        std::printf("%-10s %-6s %-10s %-5s %-8s %10s %10s %8s  %s\n", r["mechanism"].c_str(), r["direction"].c_str(),
                    r["pattern"].c_str(), (r["src_gpu"] + ">" + r["dst_gpu"]).c_str(), r["sweep"].c_str(),
                    r["gbps"].c_str(), r["ref_gbps"].c_str(), r["ref_ratio"].c_str(), r["ref_tool"].c_str());
    std::printf("%d transfer rows have a reference figure (%s)\n", filled, (out.empty() ? csv_path : out).c_str());
    return filled > 0 ? 0 : 1;
  } catch (const Refused& r) {
    cli.refuse(r.why);
  } catch (const std::exception& e) {  // the tool's own failure (e.g. the merged CSV not written)
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
}
