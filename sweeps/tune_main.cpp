// pkbench_tune: tuning tables other projects include, from results folders or study CSVs.
//   pkbench_tune [--out DIR] [--header NAME.h] [--allow-virtual] SOURCE...
// SOURCE: a results folder (the layout's transfer/transfer.csv, collectives/collectives.csv,
// fused/fused.csv) or a study CSV (its `study` column says which table). Tables
// of several machines merge into one (one source per machine). Writes, in DIR (default: the
// only source folder's tuning/):
//   <table>_tuning.csv, <table>_tuning.json (with nlohmann-json), and pkbench_tuning.h
// (constexpr rows + lookup_<table>(machine, ..., bytes)).
// A CSV with rows from virtual ranks (peer_mode "virtual": N ranks on one GPU measure HBM,
// not NVLink) is refused, exit 2: such rows are never tuning input for a real machine. With
// --allow-virtual a collectives or fused CSV of virtual ranks is taken: its rows' machine
// becomes "<machine>-virtual<ranks>" (pkbench/tuning.h's virtual_machine_key), which no real
// machine matches, only a run on the same virtual ranks (the studies' `tuned` rows).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "sweeps/cli_util.h"
#include "microbench/collectives/collectives_analysis.h"
#include "microbench/fused/fused_analysis.h"
#include "sweeps/study_schema.h"
#include "microbench/transfer/transfer_analysis.h"
#include "sweeps/tuning_writers.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;

namespace {

const char* const kUsage =
    "usage: pkbench_tune [--out DIR] [--header NAME.h] [--allow-virtual] SOURCE...\n"
    "  SOURCE: a results folder or a study CSV (transfer, collectives, fused). Writes DIR/<table>_tuning.csv,\n"
    "  DIR/<table>_tuning.json and DIR/pkbench_tuning.h (DIR defaults to the only source folder's tuning/).\n";

struct TuneCsv {
  std::string study, path;
  std::set<std::string> peer_modes = {};  // of its rows ("" where the column is absent: older CSVs)
};

std::set<std::string> peer_modes_of(const std::string& csv) {
  pk::ReadOptions o = checked_as("");
  o.one_machine = false;
  const pk::CsvTable t = pk::CsvTable::read(csv, {{"peer_mode", pk::ColumnType::text, false}}, o);
  std::set<std::string> out;
  for (size_t i = 0; i < t.rows(); ++i)
    if (!t.empty(i, "peer_mode")) out.insert(std::string(t.text(i, "peer_mode")));
  return out;
}

// The CSVs of the sources, by study: a folder's by the layout's names, a CSV's by its `study` column.
std::vector<TuneCsv> csvs_of(const std::vector<std::string>& sources, const Tool& tool) {
  std::vector<TuneCsv> csvs;
  for (const auto& s : sources) {
    if (fs::is_directory(s)) {
      bool any = false;
      for (const char* study : {"transfer", "collectives", "fused"}) {
        const std::string csv = s + "/" + study + "/" + study + ".csv";
        if (fs::exists(csv)) csvs.push_back({study, csv}), any = true;
      }
      if (!any) std::fprintf(stderr, "pkbench_tune: %s: no transfer, collectives or fused CSV, skipped\n", s.c_str());
      continue;
    }
    const std::string study = pk::peek_csv(s).study;
    if (study != "transfer" && study != "collectives" && study != "fused")
      tool.refuse("'" + s + "' is " + (study.empty() ? "not a study CSV" : "a " + study + " CSV") +
                  ": tuning tables come from transfer, collectives and fused CSVs");
    csvs.push_back({study, s});
  }
  for (auto& c : csvs) c.peer_modes = peer_modes_of(c.path);
  return csvs;
}

// Rows of virtual ranks are never tuning input for a real machine; with --allow-virtual the
// collectives and fused ones make a table of their own (a table holding virtual and real rows
// would be refused whole on the real machine).
void refuse_virtual(const std::vector<TuneCsv>& csvs, bool allow_virtual, const Tool& tool) {
  auto virtual_ok = [](const std::string& study) { return study == "collectives" || study == "fused"; };
  std::map<std::string, std::pair<std::string, std::string>> real_virtual;  // study -> a real CSV, a virtual CSV
  for (const auto& c : csvs) {
    const bool is_virtual = c.peer_modes.count("virtual") > 0;
    if (is_virtual && !(allow_virtual && virtual_ok(c.study)))
      tool.refuse("'" + c.path + "' holds rows from virtual ranks (peer_mode virtual: several ranks on one GPU measure "
                  "HBM, not NVLink): never tuning input for a real machine" +
                  (virtual_ok(c.study) ? std::string(" (--allow-virtual: a table only the same virtual ranks read)")
                                       : std::string(" (--allow-virtual takes collectives and fused CSVs only)")));
    auto& rv = real_virtual[c.study];
    (is_virtual ? rv.second : rv.first) = c.path;
  }
  for (const auto& [study, rv] : real_virtual)
    if (!rv.first.empty() && !rv.second.empty())
      tool.refuse("--allow-virtual: '" + rv.second + "' (virtual ranks) and '" + rv.first +
                  "' (real peers) would make one " + study + " table: write the virtual one apart (its own --out)");
}

TuningTable table_of(const TuneCsv& c) {
  const auto t0 = std::chrono::steady_clock::now();
  TuningTable t = c.study == "transfer"
                      ? pk::transfer::transfer_tuning(pk::transfer::read_transfer(c.path, &registered_studies()))
                  : c.study == "collectives" ? pk::coll::collectives_tuning(c.path)
                                             : pk::fused::fused_tuning(c.path);
  t.peer_modes.assign(c.peer_modes.begin(), c.peer_modes.end());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "pkbench_tune: %s: %zu %s tuning rows (%.2f s)\n", c.path.c_str(), t.rows.size(),
               c.study.c_str(), s);
  return t;
}

void write_tables(const std::vector<TuneCsv>& csvs, const std::string& out, const std::string& header) {
  std::map<std::string, std::vector<TuningTable>> by_name;
  for (const auto& c : csvs) {
    TuningTable t = table_of(c);
    by_name[t.name].push_back(std::move(t));
  }
  std::vector<TuningTable> tables;
  for (auto& [name, ts] : by_name) tables.push_back(merge_tables(ts));
  // Every table is built before anything is written, and all files land together or none does.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& t : tables) {
    files.emplace_back(out + "/" + t.name + "_tuning.csv", table_csv(t));
    if (json_available()) files.emplace_back(out + "/" + t.name + "_tuning.json", table_json(t));
  }
  files.emplace_back(out + "/" + header, tables_header(tables, "pkbench_tune"));
  pk::write_files_atomically(files);
  for (const auto& t : tables)
    std::printf("wrote %s/%s_tuning.csv%s (%zu rows)\n", out.c_str(), t.name.c_str(),
                json_available() ? (" and " + t.name + "_tuning.json").c_str() : "", t.rows.size());
  if (!json_available())
    std::fprintf(stderr, "pkbench_tune: built without nlohmann-json: no JSON written (apt install nlohmann-json3-dev)\n");
  std::printf("wrote %s/%s\n", out.c_str(), header.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, header = "pkbench_tuning.h";
  std::vector<std::string> sources;
  bool allow_virtual = false;
  const Tool tool = parse_tool_line(argc, argv,
                                    {.options = {{"--out", &out}, {"--header", &header}},
                                     .flags = {{"--allow-virtual", &allow_virtual}},
                                     .args = &sources,
                                     .usage = kUsage});
  for (const auto& s : sources)
    if (!fs::exists(s)) tool.refuse("'" + s + "': no such file or folder");
  if (sources.empty()) tool.refuse("no SOURCE given");
  if (out.empty() && (sources.size() != 1 || !fs::is_directory(sources[0])))
    tool.refuse("--out DIR is needed unless the only SOURCE is a folder");
  if (header.find('/') != std::string::npos || header.size() < 3 || header.substr(header.size() - 2) != ".h")
    tool.refuse("--header=" + header + ": a file name ending in .h, without a folder");
  try {
    const std::vector<TuneCsv> csvs = csvs_of(sources, tool);
    if (csvs.empty()) {
      std::fprintf(stderr, "pkbench_tune: error: nothing to tune from\n");
      return 1;
    }
    refuse_virtual(csvs, allow_virtual, tool);
    if (out.empty()) {
      out = sources[0] + "/tuning";  // the results layout's folder for the tables
      fs::create_directories(out);
    }
    write_tables(csvs, out, header);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_tune: error: %s\n", e.what());
    return pk::exit_code_of(e);
  }
}
