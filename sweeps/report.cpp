#include "sweeps/report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "microbench/harness/format.h"
#include "sweeps/study_schema.h"

namespace fs = std::filesystem;

namespace pk::sweeps {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The caption of a figure: its study's (StudyParts::caption), else its file name.
std::string caption_of(const std::string& file) {
  const std::string base = fs::path(file).filename().string();
  for (const StudyParts& p : registered_parts())
    if (p.caption)
      if (std::string c = p.caption(base); !c.empty()) return c;
  return base;
}

// The folder's studies in the order of one part of the report.
std::vector<const FolderStudy*> in_order(const ResultsFolder& f, int ReportOrder::*part) {
  std::vector<const FolderStudy*> v;
  for (const StudyParts* p : parts_in_order(part))
    for (const FolderStudy& s : f.studies)
      if (s.parts == p) v.push_back(&s);
  return v;
}

}  // namespace

const StudyResults* ResultsFolder::results(const std::string& study) const {
  for (const FolderStudy& s : studies)
    if (s.parts->study == study) return s.results.get();
  return nullptr;
}

const Machine* ResultsFolder::machine() const {
  for (const FolderStudy* s : in_order(*this, &ReportOrder::studies))
    if (s->results)
      if (const Machine* m = s->results->machine()) return m;
  return nullptr;
}

std::string ResultsFolder::machine_key() const {
  if (const Machine* m = machine()) return m->key();
  return fs::path(dir).filename().string();
}

std::string ResultsFolder::describe() const {
  if (const Machine* m = machine()) return m->describe();
  return dir;
}

ResultsFolder load_results(const std::string& dir) {
  if (!fs::is_directory(dir)) throw std::invalid_argument("no such folder: " + dir);
  ResultsFolder f;
  f.dir = dir;
  for (const StudyParts* p : parts_with([](const StudyParts& p) { return static_cast<bool>(p.load); }))
    f.studies.push_back({p, p->load(dir, &registered_studies())});
  // The peer-mode runs, where the study that keeps them put them.
  for (const StudyParts& p : registered_parts()) {
    if (p.peer_mode_runs.empty()) continue;
    const std::string modes = dir + "/" + p.peer_mode_runs + "/";
    for (const char* m : {"single", "ipc", "vmm"})
      if (fs::is_directory(modes + m)) f.peer_modes.push_back(load_mode(m, modes + m));
  }
  // A study folder's own files (figures, virtual-rank CSVs), sorted: directory order is the
  // file system's, and the report must not depend on it.
  auto files_in = [&](const std::string& sub, const char* ext) {
    std::vector<std::string> out;
    if (fs::is_directory(dir + "/" + sub))
      for (const auto& e : fs::directory_iterator(dir + "/" + sub))
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(sub + "/" + e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const StudyParts* p : parts_in_order(&ReportOrder::figures)) {
    for (auto& v : files_in(p->study, ".png")) f.figures.push_back(std::move(v));
    for (auto& v : files_in(p->study + "/virtual", ".csv")) f.virtual_csvs.push_back(std::move(v));
  }
  f.point_costs = point_costs_in(dir);
  if (fs::exists(dir + "/environment.txt")) f.environment = slurp(dir + "/environment.txt");
  return f;
}

std::vector<PointCostSummary> point_costs_in(const std::string& dir) {
  std::vector<std::string> csvs;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".csv") csvs.push_back(e.path().string());
  std::sort(csvs.begin(), csvs.end());  // directory order is the file system's
  std::vector<PointCostSummary> out;
  for (const auto& c : csvs)
    if (auto s = summarize_point_cost(c)) {
      s->csv = fs::relative(c, dir).string();
      out.push_back(std::move(*s));
    }
  return out;
}

std::vector<ClaimRow> paper_claims(const ResultsFolder& here, const ResultsFolder* other) {
  std::vector<ClaimRow> out;
  for (const StudyParts* p : parts_in_order(&ReportOrder::claims))
    for (const PaperClaim& c : p->claims)
      out.push_back({c.claim, c.paper, c.measure(here.results(p->study), here.dir),
                     other ? c.measure(other->results(p->study), other->dir) : "", c.note});
  return out;
}

std::vector<TargetResult> all_targets(const ResultsFolder& f) {
  std::vector<TargetResult> out;
  const std::vector<const StudyParts*> modes = mode_studies();
  for (const StudyParts* p : studies_by_targets()) {
    if (const StudyResults* r = f.results(p->study)) {
      auto t = r->targets();
      out.insert(out.end(), t.begin(), t.end());
    }
    // The peer modes' targets follow those of the last study they compare.
    if (!modes.empty() && p == modes.back() && f.peer_modes.size() > 1) peer_modes_markdown(f.peer_modes, &out);
  }
  return out;
}

namespace {

// The studies table and what this folder lacks.
void section_studies(std::ostream& os, const ResultsFolder& here) {
  os << "Machine: " << here.describe() << ".\n\n| study | CSV | rows | commit measured | peer mode |\n|---|---|---:|---|---|\n";
  const std::vector<const FolderStudy*> studies = in_order(here, &ReportOrder::studies);
  for (const FolderStudy* s : studies)
    if (s->results) s->results->table_rows(os, here.dir, "");
  const std::vector<const StudyParts*> modes = mode_studies();
  for (const auto& m : here.peer_modes)
    for (size_t i = 0; i < modes.size(); ++i)
      if (m.runs.at(i)) m.runs[i]->table_rows(os, here.dir, m.name);
  // Virtual ranks (N ranks on one GPU): listed, labelled, never in a target or a tuning table.
  for (const auto& v : here.virtual_csvs)
    csv_table_row(os, fs::path(v).stem().string() + " (virtual ranks)", here.dir + "/" + v, v, &registered_studies());
  if (!here.virtual_csvs.empty())
    os << "\nRows marked virtual ranks ran N ranks on this one GPU (green contexts): their bandwidths are HBM's, not "
          "NVLink's; they show correctness and per-SM rates, and no target or tuning table reads them.\n";
  std::vector<std::string> absent;
  for (const FolderStudy* s : studies)
    if (!s->results && s->parts->absent)
      if (std::string a = s->parts->absent(here.machine()); !a.empty()) absent.push_back(a);
  if (!absent.empty()) {
    os << "\nNot in this folder: ";
    for (size_t i = 0; i < absent.size(); ++i) os << (i ? "; " : "") << absent[i];
    os << ".\n";
  }

}

// environment.txt: date, commit, GPUs, topology and NVLinks.
void section_environment(std::ostream& os, const ResultsFolder& here) {
  os << "\n## Environment\n\n";
  if (here.environment.empty()) {
    os << "No `environment.txt` in this folder.\n";
  } else {
    std::istringstream in(here.environment);
    std::string line;
    std::vector<std::string> gpu_csv, topo;
    std::map<std::string, int> links;
    std::map<std::string, std::string> link_rate;
    std::string current_gpu;
    bool in_topo = false;
    while (std::getline(in, line)) {
      line = std::regex_replace(line, std::regex("\x1b\\[[0-9;]*m"), "");
      if (line.rfind("date_utc:", 0) == 0 || line.rfind("commit:", 0) == 0 || line.rfind("host:", 0) == 0 ||
          line.rfind("NCCL_NVLS_ENABLE", 0) == 0)
        os << "- " << line << "\n";
      else if (line.rfind("index, name", 0) == 0 || (!gpu_csv.empty() && std::regex_match(line, std::regex("[0-9]+, .*"))))
        gpu_csv.push_back(line);
      else if (line.find("CPU Affinity") != std::string::npos)
        in_topo = true, topo.push_back(line);
      else if (in_topo && !line.empty() && line.rfind("GPU", 0) == 0)
        topo.push_back(line);
      else if (in_topo && line.empty())
        in_topo = false;
      std::smatch m;
      if (std::regex_match(line, m, std::regex("(GPU [0-9]+): .*"))) current_gpu = m[1];
      if (std::regex_match(line, m, std::regex("\\s*Link [0-9]+: ([0-9.]+ GB/s).*")) && !current_gpu.empty()) {
        links[current_gpu]++;
        link_rate[current_gpu] = m[1];
      }
    }
    if (!gpu_csv.empty()) {
      std::vector<std::string> cells;
      auto split = [](const std::string& s) {
        std::vector<std::string> v;
        std::stringstream ss(s);
        std::string c;
        while (std::getline(ss, c, ',')) v.push_back(std::regex_replace(c, std::regex("^\\s+|\\s+$"), ""));
        return v;
      };
      const auto h = split(gpu_csv[0]);
      os << "\n|";
      for (const auto& c : h) os << " " << c << " |";
      os << "\n|";
      for (size_t i = 0; i < h.size(); ++i) os << "---|";
      os << "\n";
      for (size_t r = 1; r < gpu_csv.size(); ++r) {
        os << "|";
        for (const auto& c : split(gpu_csv[r])) os << " " << c << " |";
        os << "\n";
      }
    }
    if (!topo.empty()) {
      os << "\nTopology (`nvidia-smi topo -m`):\n\n```\n";
      for (const auto& t : topo) os << t << "\n";
      os << "```\n";
    }
    for (const auto& [g, n] : links) os << "\n- " << g << ": " << n << " NVLinks at " << link_rate[g] << " each";
    if (!links.empty()) os << "\n";
  }
  for (const FolderStudy& s : here.studies)
    if (s.results) s.results->environment(os);
}

void section_figures(std::ostream& os, const ResultsFolder& here) {
  os << "\n## Figures\n\n";
  if (here.figures.empty()) os << "No figures in this folder (scripts/plot.sh draws them from the CSVs).\n";
  for (const auto& fig : here.figures) {
    const std::string svg = fs::path(fig).replace_extension(".svg").string();
    os << "### " << caption_of(fig) << "\n\n![" << fig << "](" << fig << ")\n\n";
    if (fs::exists(here.dir + "/" + svg)) os << "(vector: [`" << svg << "`](" << svg << "))\n\n";
  }

}

// The paper's claims beside this folder's (and the other machine's) numbers.
void section_claims(std::ostream& os, const ResultsFolder& here, const ResultsFolder* other) {
  const std::string key = here.machine_key(), okey = other ? other->machine_key() : "";
  os << "## The paper's claims beside our numbers" << (other ? " and " + okey + "'s" : "") << "\n\n";
  os << "| claim | paper | " << key << " |" << (other ? " " + okey + " |" : "") << " how measured |\n|---|---|---|"
     << (other ? "---|" : "") << "---|\n";
  for (const auto& c : paper_claims(here, other))
    os << "| " << c.claim << " | " << c.paper << " | " << (c.ours.empty() ? "not measured" : c.ours) << " |"
       << (other ? " " + (c.other.empty() ? std::string("not measured") : c.other) + " |" : "") << " " << c.note << " |\n";

}

// The studies both folders measured, side by side.
void section_other_machine(std::ostream& os, const ResultsFolder& here, const ResultsFolder& other) {
  const std::string key = here.machine_key(), okey = other.machine_key();
  os << "\n## " << key << " beside " << okey << "\n\n";
  os << "Machines: " << here.describe() << " and " << other.describe() << ".\n\n";
  const std::vector<const FolderStudy*> studies = in_order(here, &ReportOrder::studies);
  for (const FolderStudy* s : studies)
    if (const StudyResults* o = other.results(s->parts->study); s->results && o) s->results->beside(os, *o, key, okey);
  for (const FolderStudy* s : studies) {
    if (s->parts->name_beside.empty()) continue;
    const bool a = s->results != nullptr, b = other.results(s->parts->study) != nullptr;
    if (a && !b) os << "\n- " << s->parts->name_beside << ": only " << key << " has it.";
    if (!a && b) os << "\n- " << s->parts->name_beside << ": only " << okey << " has it.";
  }
  os << "\n";
}

// What each point cost the harness (wall time minus timed samples), where the CSVs say it.
void section_point_costs(std::ostream& os, const ResultsFolder& here) {
  if (here.point_costs.empty()) return;
  os << "\n## Harness cost per point\n\nEach point's wall time (from the previous row to its own) minus the time its "
        "timed samples measured, over the points of status ok, with the parts the harness named (medians; `samples` "
        "is the host time around the timed samples, `other` what no part named). microbench/harness/point_cost.h says "
        "what each study times.\n\n"
     << point_cost_table(here.point_costs);
}

// Every target of every study: figure, baseline, its cross-check, verdict.
void section_targets(std::ostream& os, const ResultsFolder& here) {
  const auto targets = all_targets(here);
  os << "\n## Targets\n\nEvery target of every study measured in this folder, judged by one rule (microbench/harness/verdict.h): "
        "the figure against the target; where the figure is a speedup, the baseline it was measured against and that "
        "baseline's cross-check against its own tool in the same call (within "
     << num(100 * kCrossCheckTolerance, 0)
     << " % = checked). A baseline off its tool by more than that gets no speedup claimed over it: the verdict "
        "says so instead of met. Baselines without a cross-check read \"not checked\".\n\n"
     << targets_table_markdown(targets);
  os << "\n" << target_count_text(targets) << ".";
  for (const FolderStudy* s : in_order(here, &ReportOrder::studies))
    if (s->results) s->results->targets_note(os);
  os << "\n" << targets_info_markdown(targets);
}

}  // namespace

std::string report_markdown(const ResultsFolder& here, const ResultsFolder* other, const std::string& command) {
  std::ostringstream os;
  os << "# pkbench report: " << here.machine_key() << "\n\n"
     << "Generated by `" << command << "` (scripts/report.sh) from the CSVs in this folder; regenerate rather "
        "than edit. Every number is a measured row of a CSV named below; the paper's numbers are quoted from its "
        "text (8x H100 unless it says B200).\n\n";
  section_studies(os, here);
  section_environment(os, here);
  section_figures(os, here);
  section_claims(os, here, other);
  if (other) section_other_machine(os, here, *other);
  for (const FolderStudy* s : in_order(here, &ReportOrder::sections))
    if (s->results) s->results->section(os, here.dir);
  section_point_costs(os, here);
  section_targets(os, here);
  return os.str();
}

}  // namespace pk::sweeps
