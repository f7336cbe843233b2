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
#include "microbench/harness/tool_cli.h"
#include "sweeps/collectives_table.h"
#include "sweeps/fused_table.h"
#include "sweeps/study_schema.h"
#include "sweeps/transfer_table.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;

static const char* kUsage =
    "usage: pkbench_tune [--out DIR] [--header NAME.h] [--allow-virtual] SOURCE...\n"
    "  SOURCE: a results folder or a study CSV (transfer, collectives, fused). Writes DIR/<table>_tuning.csv,\n"
    "  DIR/<table>_tuning.json and DIR/pkbench_tuning.h (DIR defaults to the only source folder's tuning/).\n";

namespace {

std::string study_of(const std::string& csv) { return peek_csv(csv).study; }

// The peer modes of a CSV's rows ("" where the column is absent: older CSVs).
std::set<std::string> peer_modes_of(const std::string& csv) {
  ReadOptions o = checked_as("");
  o.one_machine = false;
  const CsvTable t = CsvTable::read(csv, {{"peer_mode", ColumnType::text, false}}, o);
  std::set<std::string> out;
  for (size_t i = 0; i < t.rows(); ++i)
    if (!t.empty(i, "peer_mode")) out.insert(std::string(t.text(i, "peer_mode")));
  return out;
}

TuningTable table_of(const std::string& study, const std::string& csv) {
  if (study == "transfer") return transfer_tuning(read_transfer(csv));
  if (study == "collectives") return collectives_tuning(csv);
  return fused_tuning(csv);
}

}  // namespace

int main(int argc, char** argv) {
  answer_help(argc, argv, kUsage);
  std::string out, header = "pkbench_tuning.h";
  std::vector<std::string> sources;
  bool allow_virtual = false;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--allow-virtual") {
      allow_virtual = true;
      continue;
    }
    if (option(argc, argv, i, "--out", &out) || option(argc, argv, i, "--header", &header)) continue;
    if (s.rfind("--", 0) == 0) usage_error(argv[0], "unknown option '" + s + "'", kUsage);
    if (!fs::exists(s)) usage_error(argv[0], "'" + s + "': no such file or folder", kUsage);
    sources.push_back(s);
  }
  if (sources.empty()) usage_error(argv[0], "no SOURCE given", kUsage);
  if (out.empty()) {
    if (sources.size() != 1 || !fs::is_directory(sources[0]))
      usage_error(argv[0], "--out DIR is needed unless the only SOURCE is a folder", kUsage);
    out = sources[0] + "/tuning";  // the results layout's folder for the tables
    fs::create_directories(out);
  }
  if (header.find('/') != std::string::npos || header.size() < 3 || header.substr(header.size() - 2) != ".h")
    usage_error(argv[0], "--header=" + header + ": a file name ending in .h, without a folder", kUsage);
  // The CSVs, by study.
  std::vector<std::pair<std::string, std::string>> csvs;  // study, path
  try {
    for (const auto& s : sources) {
      if (fs::is_directory(s)) {
        const std::vector<std::pair<std::string, std::vector<std::string>>> look = {
            {"transfer", {"transfer/transfer.csv"}},
            {"collectives", {"collectives/collectives.csv"}},
            {"fused", {"fused/fused.csv"}}};
        bool any = false;
        for (const auto& [study, names] : look)
          for (const auto& n : names)
            if (fs::exists(s + "/" + n)) {
              csvs.push_back({study, s + "/" + n});
              any = true;
              break;
            }
        if (!any) std::fprintf(stderr, "pkbench_tune: %s: no transfer, collectives or fused CSV, skipped\n", s.c_str());
      } else {
        const std::string study = study_of(s);
        if (study != "transfer" && study != "collectives" && study != "fused")
          usage_error(argv[0],
                      "'" + s + "' is " + (study.empty() ? "not a study CSV" : "a " + study + " CSV") +
                          ": tuning tables come from transfer, collectives and fused CSVs",
                      kUsage);
        csvs.push_back({study, s});
      }
    }
    if (csvs.empty()) {
      std::fprintf(stderr, "pkbench_tune: error: nothing to tune from\n");
      return 1;
    }
    std::map<std::string, std::vector<TuningTable>> by_name;
    std::vector<std::set<std::string>> modes;
    // The studies whose `tuned` rows read a table of virtual ranks (run on the same ranks).
    auto virtual_ok = [](const std::string& study) { return study == "collectives" || study == "fused"; };
    for (const auto& [study, csv] : csvs) {
      modes.push_back(peer_modes_of(csv));
      if (modes.back().count("virtual") && !(allow_virtual && virtual_ok(study)))
        usage_error(argv[0],
                    "'" + csv + "' holds rows from virtual ranks (peer_mode virtual: several ranks on one GPU measure "
                    "HBM, not NVLink): never tuning input for a real machine" +
                        (virtual_ok(study) ? std::string(" (--allow-virtual: a table only the same virtual ranks read)")
                                           : std::string(" (--allow-virtual takes collectives and fused CSVs only)")),
                    kUsage);
    }
    // A table holding virtual and real rows would be refused whole on the real machine: the
    // virtual ranks' table is written apart.
    std::map<std::string, std::pair<std::string, std::string>> real_virtual;  // study -> a real CSV, a virtual CSV
    for (size_t c = 0; c < csvs.size(); ++c) {
      auto& rv = real_virtual[csvs[c].first];
      (modes[c].count("virtual") ? rv.second : rv.first) = csvs[c].second;
    }
    for (const auto& [study, rv] : real_virtual)
      if (!rv.first.empty() && !rv.second.empty())
        usage_error(argv[0],
                    "--allow-virtual: '" + rv.second + "' (virtual ranks) and '" + rv.first + "' (real peers) would make one " +
                        study + " table: write the virtual one apart (its own --out)",
                    kUsage);
    for (size_t c = 0; c < csvs.size(); ++c) {
      const auto& [study, csv] = csvs[c];
      const auto t0 = std::chrono::steady_clock::now();
      TuningTable t = table_of(study, csv);
      t.peer_modes.assign(modes[c].begin(), modes[c].end());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "pkbench_tune: %s: %zu %s tuning rows (%.2f s)\n", csv.c_str(), t.rows.size(),
                   study.c_str(), s);
      by_name[t.name].push_back(std::move(t));
    }
    std::vector<TuningTable> tables;
    for (auto& [name, ts] : by_name) tables.push_back(merge_tables(ts));
    for (const auto& t : tables) {
      pk::write_file_atomically(out + "/" + t.name + "_tuning.csv", table_csv(t));
      if (json_available()) pk::write_file_atomically(out + "/" + t.name + "_tuning.json", table_json(t));
      std::printf("wrote %s/%s_tuning.csv%s (%zu rows)\n", out.c_str(), t.name.c_str(),
                  json_available() ? (" and " + t.name + "_tuning.json").c_str() : "", t.rows.size());
    }
    if (!json_available())
      std::fprintf(stderr, "pkbench_tune: built without nlohmann-json: no JSON written (apt install nlohmann-json3-dev)\n");
    pk::write_file_atomically(out + "/" + header, tables_header(tables, "pkbench_tune"));
    std::printf("wrote %s/%s\n", out.c_str(), header.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_tune: error: %s\n", e.what());
    return 1;
  }
}
