#include "microbench/ep/ep_ref.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::ep {

namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::vector<std::string> v;
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

}  // namespace

void parse_deepep_intranode(const std::string& path, DeepEpFigures& f) {
  static const std::regex config(R"(\[config\] num_tokens=(\d+), hidden=(\d+), num_topk=(\d+))");
  static const std::regex disp(R"(\[tuning\] Best dispatch \(BF16\): SMs (\d+), NVL chunk \d+, [0-9.]+ GB/s \(NVL\), t: ([0-9.]+) us)");
  static const std::regex comb(R"(\[tuning\] Best combine: SMs (\d+), NVL chunk \d+: [0-9.]+ GB/s \(NVL\), t: ([0-9.]+) us)");
  std::smatch m;
  bool have_d = false, have_c = false;
  for (const std::string& l : lines_of(path)) {
    if (std::regex_search(l, m, config)) {
      f.tokens = std::stoi(m[1]);
      f.hidden = std::stoi(m[2]);
      f.topk = std::stoi(m[3]);
    } else if (std::regex_search(l, m, disp)) {
      f.sms = std::stoi(m[1]);
      f.dispatch_us = std::stod(m[2]);
      have_d = true;
    } else if (std::regex_search(l, m, comb)) {
      f.sms = std::max(f.sms, std::stoi(m[1]));
      f.combine_us = std::stod(m[2]);
      have_c = true;
    }
  }
  if (!have_d || !have_c || f.tokens == 0)
    throw std::runtime_error(path + ": no '[config] num_tokens=', '[tuning] Best dispatch (BF16)' and '[tuning] Best combine' "
                                    "lines (DeepEP's test_intranode.py output)");
  f.normal = true;
}

void parse_deepep_low_latency(const std::string& path, int tokens, DeepEpFigures& f) {
  static const std::regex line(
      R"(\[rank \d+\] Dispatch bandwidth: [0-9.]+ GB/s, avg_t=([0-9.]+) us \| Combine bandwidth: [0-9.]+ GB/s, avg_t=([0-9.]+) us)");
  std::smatch m;
  int ranks = 0;
  for (const std::string& l : lines_of(path))
    if (std::regex_search(l, m, line)) {
      f.ll_dispatch_us = std::max(f.ll_dispatch_us, std::stod(m[1]));
      f.ll_combine_us = std::max(f.ll_combine_us, std::stod(m[2]));
      ++ranks;
    }
  if (ranks == 0)
    throw std::runtime_error(path + ": no '[rank R] Dispatch bandwidth: ... avg_t=... us | Combine bandwidth: ...' line "
                                    "(DeepEP's test_low_latency.py output)");
  f.ll_tokens = tokens;
  f.low_latency = true;
}

int merge_deepep(const std::string& csv, const DeepEpFigures& f, int ranks, const std::string& version) {
  const CsvPeek peek = peek_csv(csv);
  if (peek.study != "ep") throw std::runtime_error(csv + ": not an ep CSV (study '" + peek.study + "')");
  const CsvTable t = CsvTable::read(csv, peek.header);
  TidyCsv out(csv, peek.header);
  int merged = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    Row r;
    for (const std::string& c : peek.header) r[c] = std::string(t.text(i, c));
    const bool shape = r["op"] == "dispatch_combine" && r["routing"] == "uniform" && r["ranks"] == std::to_string(ranks);
    const std::string T = r["tokens"];
    auto put = [&](const std::string& tool, int sms, double d, double c) {
      r["ref_tool"] = tool;
      r["ref_sms"] = sms ? std::to_string(sms) : "";
      r["ref_dispatch_us"] = fmt_num(d);
      r["ref_combine_us"] = fmt_num(c);
      r["ref_time_us"] = fmt_num(d + c);
      const double ours = r["total_us_median"].empty() ? 0 : std::stod(r["total_us_median"]);
      r["ref_speedup"] = ours > 0 ? fmt_num((d + c) / ours, 4) : "";
      ++merged;
    };
    if (shape && f.normal && r["impl"] == "ht" && T == std::to_string(f.tokens) && r["hidden"] == std::to_string(f.hidden) &&
        r["topk"] == std::to_string(f.topk))
      put("DeepEP " + version + " test_intranode normal mode (bf16; recv one row per token and rank)", f.sms, f.dispatch_us,
          f.combine_us);
    if (shape && f.low_latency && r["impl"] == "ll" && T == std::to_string(f.ll_tokens))
      put("DeepEP " + version + " test_low_latency (dispatch FP8, combine bf16; slowest rank)", 0, f.ll_dispatch_us,
          f.ll_combine_us);
    out.append(r);
  }
  out.flush();
  return merged;
}

}  // namespace pk::ep
