// pkbench_tune: tuning tables other projects include, from results folders or study CSVs.
//   pkbench_tune [--out DIR] [--header NAME.h] [--allow-virtual] SOURCE...
// SOURCE: a results folder (the layout's <study>/<study>.csv of every study with a tuning
// table: transfer, collectives, fused) or a study CSV (its `study` column says which table);
// each study builds its own table (StudyParts::tuning). Tables
// of several machines merge into one (one source per machine). Writes, in DIR (default: the
// only source folder's tuning/):
//   <table>_tuning.csv, <table>_tuning.json (with nlohmann-json), and pkbench_tuning.h
// (constexpr rows + lookup_<table>(machine, ..., bytes)).
// A CSV with rows from virtual ranks (peer_mode "virtual": N ranks on one GPU measure HBM,
// not NVLink) is refused, exit 2: such rows are never tuning input for a real machine. With
// --allow-virtual a CSV of virtual ranks of a study that allows it (StudyParts::virtual_tuning:
// collectives, fused) is taken: its rows' machine
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
#include "microbench/harness/tool_cli.h"
#include "sweeps/study_schema.h"
#include "sweeps/tuning_writers.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;

namespace {

// The studies with a tuning table, in their registry's order.
const std::vector<const StudyParts*>& tuned_studies() {
  static const std::vector<const StudyParts*> v = parts_with([](const StudyParts& p) { return bool(p.tuning); });
  return v;
}
const StudyParts* tuned_study(const std::string& name) {
  for (const StudyParts* p : tuned_studies())
    if (p->study == name) return p;
  return nullptr;
}

const std::string& usage() {
  static const std::string u = [] {
    std::string names;
    for (const StudyParts* p : tuned_studies()) names += (names.empty() ? "" : ", ") + p->study;
    return "usage: pkbench_tune [--out DIR] [--header NAME.h] [--allow-virtual] SOURCE...\n"
           "  SOURCE: a results folder or a study CSV (" + names + "). Writes DIR/<table>_tuning.csv,\n"
           "  DIR/<table>_tuning.json and DIR/pkbench_tuning.h (DIR defaults to the only source folder's tuning/).\n";
  }();
  return u;
}

struct TuneCsv {
  const StudyParts* study;
  std::string path;
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
std::vector<TuneCsv> csvs_of(const std::vector<std::string>& sources, const ToolCli& cli) {
  std::vector<TuneCsv> csvs;
  for (const auto& s : sources) {
    if (fs::is_directory(s)) {
      bool any = false;
      for (const StudyParts* study : tuned_studies()) {
        const std::string csv = s + "/" + study->study + "/" + study->study + ".csv";
        if (fs::exists(csv)) csvs.push_back({study, csv}), any = true;
      }
      if (!any)
        std::fprintf(stderr, "pkbench_tune: %s: no %s CSV, skipped\n", s.c_str(), names_text(tuned_studies(), "or").c_str());
      continue;
    }
    const std::string study = pk::peek_csv(s).study;
    const StudyParts* parts = tuned_study(study);
    if (!parts)
      cli.refuse("'" + s + "' is " + (study.empty() ? "not a study CSV" : "a " + study + " CSV") +
                 ": tuning tables come from " + names_text(tuned_studies(), "and") + " CSVs");
    csvs.push_back({parts, s});
  }
  for (auto& c : csvs) c.peer_modes = peer_modes_of(c.path);
  return csvs;
}

// Rows of virtual ranks are never tuning input for a real machine; with --allow-virtual those
// of a study that allows it make a table of their own (a table holding virtual and real rows
// would be refused whole on the real machine).
void refuse_virtual(const std::vector<TuneCsv>& csvs, bool allow_virtual, const ToolCli& cli) {
  const std::vector<const StudyParts*> virtual_ok =
      parts_with([](const StudyParts& p) { return p.tuning && p.virtual_tuning; });
  std::map<std::string, std::pair<std::string, std::string>> real_virtual;  // study -> a real CSV, a virtual CSV
  for (const auto& c : csvs) {
    const bool is_virtual = c.peer_modes.count("virtual") > 0;
    if (is_virtual && !(allow_virtual && c.study->virtual_tuning))
      cli.refuse("'" + c.path + "' holds rows from virtual ranks (peer_mode virtual: several ranks on one GPU measure "
                 "HBM, not NVLink): never tuning input for a real machine" +
                 (c.study->virtual_tuning ? std::string(" (--allow-virtual: a table only the same virtual ranks read)")
                                          : " (--allow-virtual takes " + names_text(virtual_ok, "and") + " CSVs only)"));
    auto& rv = real_virtual[c.study->study];
    (is_virtual ? rv.second : rv.first) = c.path;
  }
  for (const auto& [study, rv] : real_virtual)
    if (!rv.first.empty() && !rv.second.empty())
      cli.refuse("--allow-virtual: '" + rv.second + "' (virtual ranks) and '" + rv.first +
                 "' (real peers) would make one " + study + " table: write the virtual one apart (its own --out)");
}

TuningTable table_of(const TuneCsv& c) {
  const auto t0 = std::chrono::steady_clock::now();
  TuningTable t = c.study->tuning(c.path, &registered_studies());
  t.peer_modes.assign(c.peer_modes.begin(), c.peer_modes.end());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "pkbench_tune: %s: %zu %s tuning rows (%.2f s)\n", c.path.c_str(), t.rows.size(),
               c.study->study.c_str(), s);
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
  ToolCli cli(argv[0], usage());
  std::string out, header = "pkbench_tuning.h";
  std::vector<std::string> sources;
  bool allow_virtual = false;
  cli.add_output("--out", &out);
  cli.app().add_option("--header", header);
  cli.app().add_flag("--allow-virtual", allow_virtual);
  cli.app().add_option("SOURCE", sources);
  cli.parse(argc, argv);
  for (const auto& s : sources)
    if (!fs::exists(s)) cli.refuse("'" + s + "': no such file or folder");
  if (sources.empty()) cli.refuse("no SOURCE given");
  if (out.empty() && (sources.size() != 1 || !fs::is_directory(sources[0])))
    cli.refuse("--out DIR is needed unless the only SOURCE is a folder");
  if (header.find('/') != std::string::npos || header.size() < 3 || header.substr(header.size() - 2) != ".h")
    cli.refuse("--header=" + header + ": a file name ending in .h, without a folder");
  try {
    const std::vector<TuneCsv> csvs = csvs_of(sources, cli);
    if (csvs.empty()) {
      std::fprintf(stderr, "pkbench_tune: error: nothing to tune from\n");
      return 1;
    }
    refuse_virtual(csvs, allow_virtual, cli);
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
