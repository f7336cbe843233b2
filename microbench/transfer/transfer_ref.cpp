#include "microbench/transfer/transfer_ref.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "microbench/harness/stats.h"
#include "pkbench/tuning.h"  // its small JSON reader (pkbench::tuning::detail)

namespace pk::transfer {

namespace {

using Json = pkbench::tuning::detail::Json;

const Json& member(const Json& o, const char* key, const std::string& where) {
  const Json* v = o.kind == Json::object ? o.get(key) : nullptr;
  if (!v) throw std::runtime_error("nvbandwidth JSON: " + where + " has no \"" + key + "\"");
  return *v;
}

// A matrix cell as nvbandwidth writes it: a number in a string, or "N/A".
double cell(const Json& c, const std::string& where) {
  if (c.kind == Json::number) return c.d;
  if (c.kind != Json::string) throw std::runtime_error("nvbandwidth JSON: " + where + ": a cell neither number nor text");
  if (c.s == "N/A") return -1;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(c.s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != c.s.size() || v < 0) throw std::runtime_error("nvbandwidth JSON: " + where + ": cell '" + c.s + "'");
  return v;
}

std::string text_of(const CsvRow& r, const char* k) {
  const auto it = r.find(k);
  return it == r.end() ? "" : it->second;
}
uint64_t u64_of(const CsvRow& r, const char* k) {
  const std::string v = text_of(r, k);
  try {
    return v.empty() ? 0 : std::stoull(v);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

NvbRun parse_nvbandwidth_json(const std::string& text) {
  const size_t at = text.find('{');  // anything the tool printed before its JSON
  if (at == std::string::npos) throw std::runtime_error("nvbandwidth JSON: no JSON object in the output");
  const Json root = pkbench::tuning::detail::JsonParser(std::string_view(text).substr(at), "nvbandwidth output").parse();
  const Json& nvb = member(root, "nvbandwidth", "the output");
  NvbRun run;
  if (const Json* v = nvb.get("version"); v && v->kind == Json::string) run.version = v->s;
  if (const Json* e = nvb.get("error"); e && e->kind == Json::string && !e->s.empty())
    throw std::runtime_error("nvbandwidth reported an error: " + e->s);
  const Json& tcs = member(nvb, "testcases", "\"nvbandwidth\"");
  if (tcs.kind != Json::array) throw std::runtime_error("nvbandwidth JSON: \"testcases\" is not an array");
  for (const Json& t : tcs.a) {
    NvbTestcase tc;
    tc.name = member(t, "name", "a testcase").s;
    if (const Json* s = t.get("status")) tc.status = s->s;
    if (const Json* m = t.get("bandwidth_matrix"))
      for (const Json& row : m->a) {
        std::vector<double> r;
        for (const Json& c : row.a) r.push_back(cell(c, tc.name));
        tc.matrix.push_back(std::move(r));
      }
    run.testcases.push_back(std::move(tc));
  }
  if (run.testcases.empty()) throw std::runtime_error("nvbandwidth JSON: no testcase");
  return run;
}

NvbMatch nvbandwidth_counterpart(const CsvRow& r, uint64_t buffer_bytes, int gpus) {
  if (text_of(r, "status") != "ok" || buffer_bytes == 0) return {};
  const std::string mech = text_of(r, "mechanism"), dir = text_of(r, "direction"), pat = text_of(r, "pattern");
  std::string kind;
  if (mech == "ce" && u64_of(r, "message_bytes") == buffer_bytes) kind = "ce";
  else if (mech == "reg" && text_of(r, "sweep") == "nvbandwidth" && u64_of(r, "bytes_per_op") == buffer_bytes) kind = "sm";
  else return {};
  if (dir != "push" && dir != "pull") return {};
  const bool push = dir == "push";
  const std::string rw = push ? "write" : "read";
  const int s = static_cast<int>(u64_of(r, "src_gpu")), d = static_cast<int>(u64_of(r, "dst_gpu"));
  if (pat == "local") return push && kind == "ce" ? NvbMatch{"device_local_copy", 0, s, 1} : NvbMatch{};
  if (pat == "one_way")  // write: the source's row; read: the destination's (its context pulls)
    return {"device_to_device_memcpy_" + rw + "_" + kind, push ? s : d, push ? d : s, 1};
  if (pat == "bidir") return {"device_to_device_bidirectional_memcpy_" + rw + "_" + kind, s, d, 2};
  // The fans over every GPU the tool ran on, its figure the root's total over our flows.
  if (static_cast<int>(u64_of(r, "gpus_used")) != gpus) return {};
  const double flows = static_cast<double>(std::max<uint64_t>(1, u64_of(r, "flows")));
  if (pat == "one_to_all") return {(push ? "one_to_all_write_" : "all_to_one_read_") + kind, 0, s, flows};
  if (pat == "all_to_one") return {(push ? "all_to_one_write_" : "one_to_all_read_") + kind, 0, d, flows};
  return {};
}

std::vector<std::string> nvbandwidth_testcases(const std::vector<CsvRow>& rows, uint64_t buffer_bytes, int gpus) {
  std::set<std::string> seen;
  std::vector<std::string> v;
  for (const CsvRow& r : rows) {
    const NvbMatch m = nvbandwidth_counterpart(r, buffer_bytes, gpus);
    if (!m.testcase.empty() && seen.insert(m.testcase).second) v.push_back(m.testcase);
  }
  std::sort(v.begin(), v.end());
  return v;
}

int merge_nvbandwidth(std::vector<CsvRow>& rows, const std::vector<NvbRun>& runs) {
  int filled = 0;
  for (CsvRow& r : rows) {
    std::vector<double> figures;
    NvbMatch used;
    const NvbRun* first = nullptr;
    for (const NvbRun& run : runs)
      for (const NvbTestcase& tc : run.testcases) {
        if (tc.matrix.empty() || tc.matrix[0].empty()) continue;
        const int gpus = static_cast<int>(tc.matrix[0].size());
        const NvbMatch m = nvbandwidth_counterpart(r, run.buffer_bytes, gpus);
        if (m.testcase != tc.name) continue;
        // A GPU x GPU matrix may come stacked (the bidirectional testcases: each direction,
        // then Total): the last block is the one read. A 1 x GPU testcase is its one row.
        const size_t n = tc.matrix.size(), block = n % static_cast<size_t>(gpus) == 0 ? gpus : n;
        const size_t row = n - block + static_cast<size_t>(m.row);
        if (row >= tc.matrix.size() || m.col >= static_cast<int>(tc.matrix[row].size())) continue;
        const double v = tc.matrix[row][m.col];
        if (v <= 0) continue;
        figures.push_back(v / m.divide);
        used = m;
        if (!first) first = &run;
      }
    if (figures.empty()) continue;
    const double ref = summarize(figures).median;
    char buf[64];
    std::snprintf(buf, sizeof buf, " -b %llu", static_cast<unsigned long long>(first->buffer_bytes >> 20));
    // No comma: a CSV cell.
    r["ref_tool"] = "nvbandwidth " + (first->version.empty() ? std::string("(version unknown)") : first->version) + " " +
                    used.testcase + buf + (figures.size() > 1 ? " (median of " + std::to_string(figures.size()) + " runs)" : "");
    std::snprintf(buf, sizeof buf, "%.6g", ref);
    r["ref_gbps"] = buf;
    const std::string ours = text_of(r, "gbps");
    if (!ours.empty()) {
      std::snprintf(buf, sizeof buf, "%.4f", std::stod(ours) / ref);
      r["ref_ratio"] = buf;
    }
    ++filled;
  }
  return filled;
}

}  // namespace pk::transfer
