#include "microbench/collectives/nccltests_output.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "microbench/collectives/coll_problem.h"
#include "microbench/harness/stats.h"

namespace pk::coll {

namespace {

[[noreturn]] void bad(int line, const std::string& what) {
  throw std::runtime_error("nccl-tests output line " + std::to_string(line) + ": " + what);
}

// The integer after `key` on a header line, e.g. "graph: 1".
bool int_after(const std::string& s, const std::string& key, int& out) {
  const size_t at = s.find(key);
  if (at == std::string::npos) return false;
  return std::sscanf(s.c_str() + at + key.size(), "%d", &out) == 1;
}

}  // namespace

std::string nccltests_program(const std::string& collective) {
  return collective == "all_to_all" ? "alltoall_perf" : collective + "_perf";
}

std::string NcclTestsRun::collective() const {
  for (const std::string& c : collective_names())
    if (program == nccltests_program(c)) return c;
  return "";
}

std::string NcclTestsRun::tool() const { return "nccl-tests " + version + " " + program; }

std::string nccltests_type_of(const std::string& d) {
  if (d == "bf16") return "bfloat16";
  if (d == "fp32") return "float";
  return d;
}

NcclTestsRun parse_nccltests_output(const std::string& text) {
  NcclTestsRun r;
  std::istringstream in(text);
  std::string s;
  int n = 0;
  bool table = false;
  while (std::getline(in, s)) {
    ++n;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (s.rfind("# nccl-tests version ", 0) == 0) {
      std::istringstream w(s.substr(21));
      w >> r.version;
    } else if (s.rfind("# Collective test starting: ", 0) == 0) {
      r.program = s.substr(28);
      while (!r.program.empty() && r.program.back() == ' ') r.program.pop_back();
      if (const size_t slash = r.program.rfind('/'); slash != std::string::npos) r.program.erase(0, slash + 1);
    } else if (s.rfind("# nThread", 0) == 0) {
      // "... warmup iters: W iters: N agg iters: ..."
      const size_t warm = s.find("warmup iters: ");
      if (!int_after(s, "graph: ", r.graph_launches) || warm == std::string::npos ||
          !int_after(s.substr(warm + 14), " iters: ", r.iters))
        bad(n, "a run header without 'iters:' and 'graph:'");
    } else if (s.rfind("#  Rank ", 0) == 0) {
      ++r.ranks;
    } else if (s.rfind("# ", 0) == 0 && s.find("(elements)") != std::string::npos) {
      table = true;  // the second line of the result header
    } else if (table && !s.empty() && s[0] != '#') {
      // size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
      std::istringstream w(s);
      std::string size, count, type, redop, root, time, algbw, busbw, wrong;
      if (!(w >> size >> count >> type >> redop >> root >> time >> algbw >> busbw >> wrong))
        bad(n, "a result line with fewer than 9 fields: '" + s + "'");
      NcclTestsLine l;
      try {
        size_t used = 0;
        l.bytes = std::stoull(size, &used);
        if (used != size.size()) throw std::invalid_argument(size);
        l.time_us = std::stod(time, &used);
        if (used != time.size() || !(l.time_us > 0)) throw std::invalid_argument(time);
        l.wrong = wrong == "N/A" ? -1 : std::stoll(wrong);
      } catch (const std::exception&) {
        bad(n, "unreadable size, time or #wrong in '" + s + "'");
      }
      l.type = type;
      r.lines.push_back(l);
    }
  }
  if (r.version.empty()) bad(n, "no '# nccl-tests version' line: not nccl-tests output");
  if (r.program.empty()) bad(n, "no '# Collective test starting' line");
  if (r.lines.empty()) bad(n, "no result lines");
  return r;
}

int merge_nccltests(std::vector<CsvRow>& rows, const std::vector<NcclTestsRun>& runs, const std::string& config) {
  int filled = 0;
  for (CsvRow& row : rows) {
    if (row["nccl_config"] != config || row["status"] != "ok") continue;
    const bool graph = row["launch_mode"] == "graph";
    // Every run of this collective, mode and GPU count that measured the row's size and type:
    // one figure each, and the reference is their median (a launch-bound figure moves by
    // 10 % from one run of the tool to the next; ref_check.sh runs it REPEATS times).
    std::vector<double> times;
    const NcclTestsRun* first = nullptr;
    for (const NcclTestsRun& run : runs) {
      if (run.collective() != row["collective"] || (run.graph_launches > 0) != graph ||
          std::to_string(run.ranks) != row["gpus"])
        continue;
      // A graph row timed over N launches compares with the tool's -G N only (older rows: any).
      if (const std::string g = row["nccltests_graph_launches"]; graph && !g.empty() && g != std::to_string(run.graph_launches))
        continue;
      for (const NcclTestsLine& l : run.lines) {
        if (std::to_string(l.bytes) != row["bytes"] || l.type != nccltests_type_of(row["dtype"])) continue;
        times.push_back(l.time_us);
        if (!first) first = &run;
      }
    }
    if (times.empty()) continue;
    const double ref = summarize(times).median;
    char buf[32];
    row["ref_tool"] = first->tool() + (graph ? " -G " + std::to_string(first->graph_launches) : "") +
                      (times.size() > 1 ? " (median of " + std::to_string(times.size()) + " runs)" : "");  // no comma: a CSV cell
    std::snprintf(buf, sizeof buf, "%.4g", ref);
    row["ref_time_us"] = buf;
    const std::string ours = row["time_us_nccltests"];
    if (!ours.empty()) {
      std::snprintf(buf, sizeof buf, "%.4f", std::stod(ours) / ref);
      row["ref_ratio"] = buf;
    }
    ++filled;
  }
  return filled;
}

int combine_study_runs(std::vector<std::vector<CsvRow>>& runs) {
  if (runs.empty()) return 0;
  auto key = [](CsvRow& r) {
    std::string k;
    for (const char* c : {"collective", "impl", "nccl_config", "dtype", "bytes", "gpus", "launch_mode"}) k += r[c] + '|';
    return k;
  };
  std::map<std::string, std::vector<CsvRow*>> same;
  for (auto& run : runs)
    for (CsvRow& r : run)
      if (r["status"] == "ok" && !r["time_us_nccltests"].empty()) same[key(r)].push_back(&r);
  int combined = 0;
  for (CsvRow& r : runs.front()) {
    if (r["status"] != "ok" || r["time_us_nccltests"].empty()) continue;
    const auto& rows = same[key(r)];
    std::vector<double> t;
    long repeats = 0;
    for (CsvRow* x : rows) {
      t.push_back(std::stod((*x)["time_us_nccltests"]));
      const std::string n = (*x)["nccltests_repeats"];
      repeats += n.empty() ? 1 : std::stol(n);
    }
    const double own = std::stod(r["time_us_nccltests"]), med = summarize(t).median;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", med);
    r["time_us_nccltests"] = buf;
    if (const std::string bw = r["busbw_gbps_nccltests"]; !bw.empty() && med > 0) {  // bytes / time
      std::snprintf(buf, sizeof buf, "%.6g", std::stod(bw) * own / med);
      r["busbw_gbps_nccltests"] = buf;
    }
    r["nccltests_repeats"] = std::to_string(repeats);
    ++combined;
  }
  return combined;
}

}  // namespace pk::coll
