// pkbench_transfer_ref: nvbandwidth's own figures merged into a transfer CSV as the reference
// columns of the rows that have a counterpart among its testcases (transfer_ref.h: ref_tool,
// ref_gbps, ref_ratio = gbps / the tool's figure), and the ratios printed.
//   pkbench_transfer_ref --plan --csv=transfer.csv [--buffer=512M]
//       the testcases to run, one line, space-separated (nvbandwidth -t ...); exit 1 if none
//   pkbench_transfer_ref --csv=transfer.csv [--out=FILE] [--buffer=512M] --nvbandwidth=FILE ...
//       FILE: nvbandwidth's --json output, run with -b = --buffer (in MiB); several files (the
//       tool run repeatedly): the median of their figures
//   pkbench_transfer_ref --csv=transfer.csv [--out=FILE] [--buffer=512M] --run=NVBANDWIDTH --json=FILE [--repeats=N]
//       runs the tool itself on the planned testcases, N times, each run's output kept (FILE; with
//       N > 1, _r1, _r2, ... before FILE's extension), then merges as above; no testcase planned:
//       nothing run, exit 0
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

extern char** environ;  // the tool's environment is this program's

using namespace pk::transfer;

namespace {

const char* kUsage =
    "usage: pkbench_transfer_ref --csv=FILE [--out=FILE] [--buffer=SIZE] --nvbandwidth=FILE ...\n"
    "       pkbench_transfer_ref --csv=FILE [--out=FILE] [--buffer=SIZE] --run=NVBANDWIDTH --json=FILE [--repeats=N]\n"
    "       pkbench_transfer_ref --plan --csv=FILE [--buffer=SIZE]\n"
    "  merges nvbandwidth's --json output (run with -b = --buffer in MiB, default 512M) into the\n"
    "  transfer rows with a counterpart (ref_tool, ref_gbps, ref_ratio = gbps / the tool's figure);\n"
    "  --plan prints the testcases those rows have counterparts in; --run runs the tool on them itself\n"
    "  (-j -b MiB -t ...), --repeats times, its output kept in --json (several: _r1, _r2, ... before\n"
    "  the file's extension)\n";

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

// Run r of n's output file: `json` itself for one run, else with _r<r> before its extension.
std::string run_json(const std::string& json, int r, int n) {
  if (n == 1) return json;
  const size_t slash = json.find_last_of('/'), dot = json.find_last_of('.');
  const size_t at = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? dot : json.size();
  return json.substr(0, at) + "_r" + std::to_string(r) + json.substr(at);
}

// nvbandwidth run once on `tcs`: its standard output (the -j report) into `json`, written whole
// (a temporary file renamed once the tool exited 0); its standard error is this program's.
void run_nvbandwidth(const std::string& bin, uint64_t buffer_bytes, const std::vector<std::string>& tcs,
                     const std::string& json) {
  std::vector<std::string> args = {bin, "-j", "-b", std::to_string(buffer_bytes >> 20), "-t"};
  args.insert(args.end(), tcs.begin(), tcs.end());
  std::string shown;
  for (const auto& a : args) shown += (shown.empty() ? "" : " ") + a;
  std::fprintf(stderr, "running: %s > %s\n", shown.c_str(), json.c_str());
  const std::string tmp = json + ".tmp." + std::to_string(getpid());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err) {  // the child may have made the temporary file before its exec failed
    std::remove(tmp.c_str());
    throw std::runtime_error("--run=" + bin + ": cannot start it (or open " + tmp + "): " + std::strerror(err));
  }
  int status = 0;
  pid_t waited = 0;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != pid) {
    std::remove(tmp.c_str());
    throw std::runtime_error("--run=" + bin + ": waiting for it failed: " + std::strerror(errno));
  }
  const bool exited_0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!exited_0 || std::rename(tmp.c_str(), json.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::string why = WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status)) : "killed by a signal";
    if (exited_0) why += ", but " + json + " was not written";
    throw std::runtime_error("--run=" + bin + ": " + why);
  }
}

// Whether `tool` names a program this process can start: a path to an executable file, or a
// name found so on PATH (as posix_spawnp looks it up).
bool startable(const std::string& tool) {
  const auto runnable = [](const std::string& f) {
    struct stat st {};
    return stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(f.c_str(), X_OK) == 0;
  };
  if (tool.find('/') != std::string::npos) return runnable(tool);
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (runnable((d.empty() ? "." : d) + "/" + tool)) return true;
  return false;
}

// The command line, every refusal before anything is read.
struct Args {
  std::string csv, out, buffer = "512M", run, json;
  std::vector<std::string> files;  // --nvbandwidth's
  int repeats = 1;
  bool plan = false;
  uint64_t bytes = 0;  // --buffer's
};

Args parse_args(pk::ToolCli& cli, int argc, char** argv) {
  Args a;
  cli.app().add_option("--csv", a.csv);
  cli.add_output("--out", &a.out);
  cli.app().add_option("--buffer", a.buffer);
  cli.app().add_option("--nvbandwidth", a.files)->allow_extra_args(false);  // one file per --nvbandwidth
  cli.app().add_flag("--plan", a.plan);
  cli.app().add_option("--run", a.run);
  cli.add_output("--json", &a.json);
  cli.app().add_option("--repeats", a.repeats);
  cli.parse(argc, argv);
  if (a.csv.empty()) cli.refuse("--csv: missing");
  if (!a.run.empty() && (a.plan || !a.files.empty())) cli.refuse("--run: not with --plan or --nvbandwidth");
  if (a.run.empty() && !a.json.empty()) cli.refuse("--json: only with --run");
  if (a.run.empty() && cli.app().count("--repeats")) cli.refuse("--repeats: only with --run");
  if (!a.run.empty() && a.json.empty()) cli.refuse("--json: missing (where --run keeps the tool's output)");
  if (a.repeats < 1 || a.repeats > 100) cli.refuse("--repeats=" + std::to_string(a.repeats) + ": 1 to 100");
  try {
    a.bytes = pk::parse_size(a.buffer);
  } catch (const std::exception& e) {
    cli.refuse("--buffer=" + a.buffer + ": " + e.what());
  }
  if (a.bytes == 0 || a.bytes % (1ull << 20)) cli.refuse("--buffer=" + a.buffer + ": whole MiB (nvbandwidth's -b)");
  if (!a.plan && a.run.empty() && a.files.empty()) cli.refuse("--nvbandwidth or --run: missing");
  if (!a.run.empty() && !startable(a.run)) cli.refuse("--run=" + a.run + ": not an executable file (nor one on PATH)");
  return a;
}

// The tool's --json outputs, each run with a buffer of `bytes`.
std::vector<NvbRun> read_runs(const std::vector<std::string>& files, uint64_t bytes) {
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
  return runs;
}

// The runs' figures merged into the rows, the CSV written whole to `path`, the ratios printed.
// Exit 0 where a row got a figure, else 1.
int merge_and_report(Csv& csv, const std::vector<NvbRun>& runs, const std::string& path) {
  const int filled = merge_nvbandwidth(csv.rows, runs);
  pk::write_file_atomically(path, csv_text(csv));
  std::printf("%-10s %-6s %-10s %-5s %-8s %10s %10s %8s  %s\n", "mechanism", "dir", "pattern", "gpus", "sweep", "gbps",
              "tool_gbps", "ratio", "tool");
  for (auto& r : csv.rows)
    if (!r["ref_tool"].empty())
      std::printf("%-10s %-6s %-10s %-5s %-8s %10s %10s %8s  %s\n", r["mechanism"].c_str(), r["direction"].c_str(),
                  r["pattern"].c_str(), (r["src_gpu"] + ">" + r["dst_gpu"]).c_str(), r["sweep"].c_str(),
                  r["gbps"].c_str(), r["ref_gbps"].c_str(), r["ref_ratio"].c_str(), r["ref_tool"].c_str());
  std::printf("%d transfer rows have a reference figure (%s)\n", filled, path.c_str());
  return filled > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  Args a = parse_args(cli, argc, argv);
  try {
    Csv csv = read_csv(a.csv);
    const auto tcs = nvbandwidth_testcases(csv.rows, a.bytes, csv.gpus);
    if (a.plan) {
      for (size_t k = 0; k < tcs.size(); ++k) std::printf("%s%s", k ? " " : "", tcs[k].c_str());
      std::printf("\n");
      return tcs.empty() ? 1 : 0;
    }
    if (!a.run.empty()) {
      if (tcs.empty()) {
        std::printf("no row of %s has an nvbandwidth counterpart: the tool not run\n", a.csv.c_str());
        return 0;
      }
      for (int r = 1; r <= a.repeats; ++r) {
        a.files.push_back(run_json(a.json, r, a.repeats));
        run_nvbandwidth(a.run, a.bytes, tcs, a.files.back());
      }
    }
    return merge_and_report(csv, read_runs(a.files, a.bytes), a.out.empty() ? a.csv : a.out);
  } catch (const Refused& r) {
    cli.refuse(r.why);
  } catch (const std::exception& e) {  // the tool's own failure (e.g. nvbandwidth's, or the merged CSV not written)
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
}
