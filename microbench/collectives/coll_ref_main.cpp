// pkbench_coll_ref: nccl-tests' own figures merged into a collectives CSV as the reference
// columns of the NCCL rows (ref_tool, ref_time_us, ref_ratio = time_us_nccltests / the
// tool's time), and the ratios printed, one line per NCCL row.
//   pkbench_coll_ref --csv=collectives.csv [--out=merged.csv] --nccl-tests=[CONFIG:]FILE ...
// CONFIG is the nccl_config the tool ran as (default; symmetric for -R 2; LL/Ring under
// NCCL_PROTO=LL NCCL_ALGO=Ring, ...); FILE is the captured stdout of all_reduce_perf & co.
// (eager, or -G for the graph rows).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "microbench/collectives/coll_problem.h"
#include "microbench/collectives/collective.h"
#include "microbench/collectives/nccltests_output.h"
#include "microbench/harness/csv_table.h"
#include "microbench/harness/tool_cli.h"

using namespace pk::coll;

namespace {

const char* kUsage =
    "usage: pkbench_coll_ref --csv=FILE ... [--out=FILE] --nccl-tests=[CONFIG:]FILE ...\n"
    "       pkbench_coll_ref --plan COLLECTIVES CONFIGS   (what ref_check.sh runs: a line per\n"
    "  collective and configuration NCCL takes: collective config impl program env(K=V,..|-) args(a,b|-))\n"
    "  several --csv (the study run repeatedly, alternating with the tool): each row's time_us_nccltests\n"
    "  is the median over the runs (nccltests_repeats counts them; --out needed)\n"
    "  merges nccl-tests' output into the NCCL rows of the collectives CSV (ref_tool, ref_time_us,\n"
    "  ref_ratio = time_us_nccltests / the tool's time) and prints the ratio per row; several files of\n"
    "  one CONFIG (the tool run repeatedly): the median of their figures\n";

}  // namespace

// --plan: one line per (collective, configuration) that NCCL takes, with what the tool needs
// to measure that configuration, so ref_check.sh restates no configuration name or refusal:
//   <collective> <config> <study impl> <program> <env: K=V,... or -> <extra tool args: comma list or ->
int print_plan(const pk::ToolCli& cli, const std::string& colls, const std::string& configs) {
  std::vector<NcclConfig> cs;
  std::vector<std::pair<std::string, int>> layouts;
  try {
    cs = parse_nccl_configs(configs);
    std::stringstream in(colls);
    for (std::string c; std::getline(in, c, ',');) {
      // nccl-tests has a program per NCCL collective, none for the tensor-dimension layouts.
      if (collective_named(c).tensor())
        cli.refuse("--plan: " + c + ": no nccl-tests program measures it (a tensor-dimension collective)");
      layouts.push_back({c, layout_of(c)});
    }
  } catch (const std::exception& e) {
    cli.refuse(std::string("--plan: ") + e.what());
  }
  int lines = 0;
  for (const auto& [coll, layout] : layouts)
    for (const NcclConfig& c : cs) {
      if (!nccl_config_refusal(c, layout).empty()) continue;
      ++lines;
      const std::string env = c.proto.empty() ? "-" : "NCCL_PROTO=" + c.proto + ",NCCL_ALGO=" + c.algo;
      std::printf("%s %s %s %s %s %s\n", coll.c_str(), c.name.c_str(), c.impl_name().c_str(),
                  nccltests_program(coll).c_str(), env.c_str(), c.symmetric ? "-R,2" : "-");
    }
  if (lines == 0) cli.refuse("--plan: NCCL takes none of the configurations " + configs + " for " + colls);
  return 0;
}

namespace {

// A refusal: main prints it with the usage and exits 2.
struct Refused {
  std::string why;
};

struct Args {
  std::vector<std::string> csvs;
  std::string out;
  std::vector<std::pair<std::string, std::string>> refs;  // config, file
  std::vector<std::string> plan;                          // COLLECTIVES CONFIGS
};

Args parse_args(pk::ToolCli& cli, int argc, char** argv) {
  Args args;
  std::vector<std::string> refs;
  CLI::Option* csv = cli.app().add_option("--csv", args.csvs)->allow_extra_args(false);  // one file per --csv
  CLI::Option* out = cli.add_output("--out", &args.out);
  CLI::Option* nccl_tests = cli.app().add_option("--nccl-tests", refs)->allow_extra_args(false);
  cli.app().add_option("--plan", args.plan)->expected(2)->excludes(csv)->excludes(out)->excludes(nccl_tests);
  cli.parse(argc, argv);
  if (!args.plan.empty()) return args;
  for (std::string v : refs) {
    std::string config = "default";
    if (const size_t colon = v.find(':'); colon != std::string::npos) {
      config = v.substr(0, colon);
      v.erase(0, colon + 1);
      bool known = false;
      for (const auto& c : nccl_configs()) known |= c.name == config;
      if (!known) cli.refuse("--nccl-tests=" + config + ":...: unknown nccl_config '" + config + "'");
    }
    args.refs.push_back({config, v});
  }
  if (args.csvs.empty()) cli.refuse("--csv: missing");
  if (args.refs.empty()) cli.refuse("--nccl-tests: missing");
  if (args.out.empty() && args.csvs.size() > 1) cli.refuse("--out: needed with several --csv");
  if (args.out.empty()) args.out = args.csvs.front();
  return args;
}

// The study's CSVs, one header for all; several runs become one (each row's figure the median).
struct StudyCsv {
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
};
StudyCsv read_study_csvs(const std::vector<std::string>& csvs) {
  std::vector<std::string> header;
  std::vector<std::vector<CsvRow>> study_runs;
  for (const std::string& csv : csvs) {
    std::ifstream f(csv);
    if (!f) throw Refused{"--csv=" + csv + ": cannot read"};
    std::string line;
    std::getline(f, line);
    const std::vector<std::string> h = pk::split_cells(line);
    for (const char* need : {"collective", "dtype", "bytes", "gpus", "launch_mode", "nccl_config", "status",
                             "time_us_nccltests", "ref_tool", "ref_time_us", "ref_ratio"})
      if (std::find(h.begin(), h.end(), need) == h.end())
        throw Refused{"--csv=" + csv + ": no '" + need + "' column (not a collectives CSV of this version)"};
    if (header.empty()) header = h;
    else if (h != header) throw Refused{"--csv=" + csv + ": its header differs from --csv=" + csvs.front() + "'s"};
    std::vector<CsvRow>& rows = study_runs.emplace_back();
    while (std::getline(f, line)) {
      if (line.empty()) continue;
      const auto cells = pk::split_cells(line);
      if (cells.size() != header.size())
        throw Refused{"--csv=" + csv + ": line " + std::to_string(rows.size() + 2) + " has " +
                      std::to_string(cells.size()) + " fields, the header " + std::to_string(header.size())};
      CsvRow r;
      for (size_t k = 0; k < header.size(); ++k) r[header[k]] = cells[k];
      rows.push_back(std::move(r));
    }
  }
  // The study run several times (alternating with the tool): each row's figure is the median.
  if (study_runs.size() > 1) combine_study_runs(study_runs);
  return {header, std::move(study_runs.front())};
}

// The tool's runs by configuration: every file of one configuration is merged at once, so a
// configuration run several times is referenced by the median of its runs.
std::map<std::string, std::vector<NcclTestsRun>> read_references(
    const std::vector<std::pair<std::string, std::string>>& refs) {
  std::map<std::string, std::vector<NcclTestsRun>> runs_of;
  for (const auto& [config, file] : refs) {
    std::ifstream t(file);
    if (!t) throw Refused{"--nccl-tests=" + file + ": cannot read"};
    std::stringstream text;
    text << t.rdbuf();
    NcclTestsRun run;
    try {
      run = parse_nccltests_output(text.str());
    } catch (const std::exception& e) {
      throw Refused{"--nccl-tests=" + file + ": " + e.what()};
    }
    for (const auto& l : run.lines)
      if (l.wrong > 0) throw Refused{"--nccl-tests=" + file + ": the tool reported wrong results; not a reference"};
    runs_of[config].push_back(std::move(run));
  }
  return runs_of;
}

// Written to a temporary file and renamed into place.
void write_csv(const std::string& out, const StudyCsv& csv) {
  const std::string tmp = out + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream o(tmp);
    for (size_t k = 0; k < csv.header.size(); ++k) o << (k ? "," : "") << csv.header[k];
    o << "\n";
    for (const auto& r : csv.rows) {
      for (size_t k = 0; k < csv.header.size(); ++k) {
        const auto it = r.find(csv.header[k]);
        o << (k ? "," : "") << (it == r.end() ? "" : it->second);
      }
      o << "\n";
    }
    if (!o) throw Refused{"--out=" + out + ": cannot write"};
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) throw Refused{"--out=" + out + ": cannot rename into place"};
}

void print_ratios(std::vector<CsvRow>& rows) {
  std::printf("%-16s %-22s %-6s %11s %-6s %14s %11s %7s\n", "collective", "nccl_config", "dtype", "bytes", "mode",
              "nccltests_us", "tool_us", "ratio");
  for (auto& r : rows) {
    if (r["ref_tool"].empty()) continue;
    std::printf("%-16s %-22s %-6s %11s %-6s %14s %11s %7s\n", r["collective"].c_str(), r["nccl_config"].c_str(),
                r["dtype"].c_str(), r["bytes"].c_str(), r["launch_mode"].c_str(), r["time_us_nccltests"].c_str(),
                r["ref_time_us"].c_str(), r["ref_ratio"].c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  const Args args = parse_args(cli, argc, argv);
  if (!args.plan.empty()) return print_plan(cli, args.plan[0], args.plan[1]);
  try {
    StudyCsv csv = read_study_csvs(args.csvs);
    int filled = 0;
    for (const auto& [config, runs] : read_references(args.refs)) filled += merge_nccltests(csv.rows, runs, config);
    write_csv(args.out, csv);
    print_ratios(csv.rows);
    std::printf("%d NCCL rows have a reference figure (%s)\n", filled, args.out.c_str());
    return filled > 0 ? 0 : 1;
  } catch (const Refused& r) {
    cli.refuse(r.why);
  }
}
