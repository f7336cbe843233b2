#pragma once
// What a study's analysis gives the tools of sweeps/ that span every study: pkbench_compare
// (its comparison measure), pkbench_tune (its tuning table), pkbench_tune_loo (its leave-one-out validation), pkbench_peer_modes (its
// peer-mode comparison) and pkbench_report (its parts of a results folder's REPORT.md). A study
// fills one StudyParts beside its reader (microbench/<study>/<study>_parts.cpp) and names the
// function returning it on its line of sweeps/CMakeLists.txt (PARTS): the sweeps find every
// study through that list and name none. Every member is optional (a study without a tuning
// table leaves `tuning` empty, one the report does not show leaves `load` empty).
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/study_measure.h"
#include "microbench/harness/targets.h"
#include "microbench/harness/tuning_loo.h"
#include "microbench/harness/tuning_table.h"

namespace pk {

// A study's CSVs of one results folder (scripts/run.sh's layout: <study>/<study>.csv and what
// the study keeps beside it) or of one peer-mode run (MODE_DIR/<study>.csv), read once, as the
// report and the peer-mode comparison print them.
class StudyResults {
 public:
  virtual ~StudyResults() = default;
  // The machine its rows were measured on; nullptr where the study does not name the folder's
  // machine (the report asks the studies in their order).
  virtual const Machine* machine() const { return nullptr; }
  // Its rows of the report's studies table (| study | CSV | rows | commit measured | peer mode |),
  // paths relative to `dir`; `mode`: the peer mode of a peer-mode run, "" for the folder's own.
  virtual void table_rows(std::ostream&, const std::string& /*dir*/, const std::string& /*mode*/) const {}
  // After the folder's environment: what the study adds of the machine.
  virtual void environment(std::ostream&) const {}
  // Its rows beside `other`, the same study's results in another folder (key, okey: the two
  // machines' keys).
  virtual void beside(std::ostream&, const StudyResults& /*other*/, const std::string& /*key*/,
                      const std::string& /*okey*/) const {}
  // Its section of the report; `dir`: the folder.
  virtual void section(std::ostream&, const std::string& /*dir*/) const {}
  // Its targets judged on these results.
  virtual std::vector<TargetResult> targets() const { return {}; }
  // What the report's targets section says of it, after the count.
  virtual void targets_note(std::ostream&) const {}
};

// Rows, rows ok, commit and peer mode of any study's CSV (columns by name, all optional; rows
// of several machines accepted), its header checked against `schemas`.
struct CsvInfo {
  size_t rows = 0, ok = 0;
  std::string commit, peer_mode;
};
CsvInfo csv_info(const std::string& path, const StudySchemas* schemas);
// A row of the report's studies table from csv_info(path): "| <label> | `<shown>` | rows (n ok)
// | commit | peer mode |".
void csv_table_row(std::ostream& os, const std::string& label, const std::string& path, const std::string& shown,
                   const StudySchemas* schemas);
inline std::string dash_if_empty(const std::string& s) { return s.empty() ? "-" : s; }
// `path` relative to folder `dir`, as the report names files.
std::string relative_to(const std::string& path, const std::string& dir);

// The results of a study whose data is one CSV read as `Data` (a StudyFile: its path, machine,
// commit and peer mode).
template <class Data>
class FileResults : public StudyResults {
 public:
  explicit FileResults(Data d) : data(std::move(d)) {}
  const Machine* machine() const override { return &data.machine; }
  Data data;
};

// The results of a study read from its CSV when asked (`csv`, against `schemas`); its row of the
// studies table from csv_info ("| <label> | ...").
class CsvPathResults : public StudyResults {
 public:
  CsvPathResults(std::string label, std::string csv_, const StudySchemas* schemas_)
      : csv(std::move(csv_)), schemas(schemas_), label_(std::move(label)) {}
  void table_rows(std::ostream& os, const std::string& dir, const std::string&) const override {
    csv_table_row(os, label_, csv, relative_to(csv, dir), schemas);
  }
  std::string csv;
  const StudySchemas* schemas;

 private:
  std::string label_;
};

// How a study's results are read from a folder: nullptr where it lacks them.
using LoadResults = std::function<std::unique_ptr<StudyResults>(const std::string& dir, const StudySchemas* schemas)>;
// The loader of results `R` made from one CSV, `file` relative to the folder (R(csv_path, schemas)).
template <class R>
LoadResults load_csv(std::string file) {
  return [file](const std::string& dir, const StudySchemas* schemas) -> std::unique_ptr<StudyResults> {
    const std::string csv = dir + "/" + file;
    if (!std::filesystem::exists(csv)) return nullptr;
    return std::make_unique<R>(csv, schemas);
  };
}

// One of the paper's claims a study measures: how the paper puts it, how the study measures it
// in a folder ("" = not measured there; `r` is nullptr where the folder lacks the study).
struct PaperClaim {
  std::string claim, paper;
  std::function<std::string(const StudyResults* r, const std::string& dir)> measure;
  std::string note;
};

// A peer-mode comparison's rows of one table: how many were checked, which were outside the target.
struct ModeTally {
  int checked = 0, missed = 0;
  std::string misses;
  void count(bool ok, const std::string& what);
  // The target's verdict line, `what` naming the rows ("mechanism rows", "latencies").
  TargetResult result(const TargetSpec& spec, const std::string& head, const std::string& what) const;
};
// One table cell per mode after the first: its value over the first's (v[0]), "-" where a mode
// lacks the row (NaN). True when every ratio is within `limit` of 1 (and none is missing).
bool mode_ratio_cells(std::ostream& os, const std::vector<double>& v, double limit);
// A peer-mode table's head: `lead` ("| a | b |", its columns left-aligned), each mode's value
// (its name and `unit`), each mode against the first, then the `tail` columns, and the
// alignment row.
void mode_table_head(std::ostream& os, const std::string& lead, const std::vector<std::string>& modes, const char* unit,
                     const std::vector<std::string>& tail);
// One row's value cells, one per mode (NaN: the mode lacks the row; `prec` digits, then
// `unit`), then its ratio cells (mode_ratio_cells); true when every ratio is within `limit`.
bool mode_value_cells(std::ostream& os, const std::vector<double>& v, int prec, const char* unit, double limit);

// A study's part in the comparison of one run per peer mode (single, ipc, vmm: pkbench_peer_modes).
struct PeerModeParts {
  // MODE_DIR's CSV of the study (nullptr: none there), read against `schemas`.
  LoadResults load;
  // Its target (id "peer_modes.<study>"), and how the comparison's first lines state it
  // ("every cross-GPU latency within 5 %").
  TargetSpec spec;
  std::string stated;
  // Its table: one row per row of the first mode's results; `runs[i]` is mode i's (nullptr
  // where that run lacks the study).
  std::function<ModeTally(std::ostream&, const std::vector<std::string>& modes,
                          const std::vector<const StudyResults*>& runs, const TargetSpec& spec)>
      table;
  // The target's line: "<head><ok> of <checked> <rows> within ...".
  std::string head, rows;
};

// Where a study's parts stand among the other studies' in each part of the report (lower
// first): `studies` for the studies table and what follows its order (the machine, what the
// folder lacks, the environment, the other machine, the targets' notes), then the figures, the
// paper's claims, the sections and the targets, each in the order the committed reports have.
struct ReportOrder {
  int studies = 0, figures = 0, claims = 0, sections = 0, targets = 0;
};

struct StudyParts {
  std::string study;  // the value of its CSV's `study` column (the registry sets it)

  // pkbench_compare: how it matches and measures the study's points (empty: not compared).
  std::function<StudyMeasure()> measure;

  // pkbench_tune: its tuning table from one of its CSVs, read against `schemas`.
  std::function<TuningTable(const std::string& csv, const StudySchemas* schemas)> tuning;
  bool virtual_tuning = false;  // a CSV of virtual ranks may make a table of its own (--allow-virtual)
  // pkbench_tune_loo: the validation over every CSV of the study given, `tolerance` a fraction.
  std::function<std::vector<LooResult>(const std::vector<std::string>& csvs, double tolerance)> leave_one_out;

  // pkbench_peer_modes and the report (nullptr: the study is not compared across peer modes).
  std::shared_ptr<const PeerModeParts> peer_modes;
  // Where a results folder keeps the peer-mode runs, relative to it ("": not this study's).
  std::string peer_mode_runs;

  // pkbench_report: its results in folder `dir` (nullptr: none there), read against `schemas`.
  LoadResults load;
  // The caption of one of its figures (a file name of <study>/*.png), "" when not its.
  std::function<std::string(const std::string& figure)> caption;
  std::vector<PaperClaim> claims;
  // What the report says where the folder lacks the study ("" or empty: nothing);
  // `folder_machine`: the folder's machine as the other studies name it (nullptr: none does).
  std::function<std::string(const Machine* folder_machine)> absent;
  std::string name_beside;  // "fused study": named where only one of two folders has it ("": never)
  const TargetSpecs* target_specs = nullptr;  // every target it judges (its analysis's list)
  ReportOrder order;
};

}  // namespace pk
