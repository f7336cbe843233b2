// Compiled by tests/cli/tuning_header.sh against a header pkbench_tune just generated, the
// way another project would include it (C++17, nothing else from pkbench): every row of
// each table's CSV must come back from its lookup at the bucket's first byte, its last byte
// and in between, and sizes below the first bucket must give the smallest bucket. Then
// pkbench/tuning.h over the header (load_compiled) and over the JSON beside it must give the
// same answers, every measured size answering "measured" with its bucket's choice.
//   tuning_header_check TRANSFER_CSV COLLECTIVES_CSV FUSED_CSV
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

// The API first: it finds the generated header's functions only when load_compiled() is
// instantiated (argument-dependent lookup), so the include order does not matter.
#include <pkbench/tuning.h>

#include "pkbench_tuning.h"

namespace tn = pkbench::tuning;

namespace {

int failures = 0;

struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

Csv read(const char* path) {
  Csv c;
  std::ifstream f(path);
  std::string line;
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) v.push_back(x);
    if (!s.empty() && s.back() == ',') v.push_back("");
    return v;
  };
  if (!std::getline(f, line)) {
    std::fprintf(stderr, "cannot read %s\n", path);
    ++failures;
    return c;
  }
  c.header = split(line);
  while (std::getline(f, line)) {
    auto cells = split(line);
    std::map<std::string, std::string> r;
    for (size_t i = 0; i < c.header.size(); ++i) r[c.header[i]] = i < cells.size() ? cells[i] : "";
    c.rows.push_back(r);
  }
  return c;
}

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

long long ll(const std::string& s) { return s.empty() ? 0 : std::stoll(s); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s TRANSFER_CSV COLLECTIVES_CSV FUSED_CSV\n", argv[0]);
    return 2;
  }
  // Transfer: the header's rows are the CSV's rows, in order.
  const Csv t = read(argv[1]);
  expect(t.rows.size() == tn::kTransferTuningRows, "transfer row count");
  size_t checked = 0;
  for (const auto& r : t.rows) {
    const long long from = ll(r.at("from_bytes")), to = ll(r.at("to_bytes"));
    for (unsigned long long b : {static_cast<unsigned long long>(from), static_cast<unsigned long long>(to),
                                 static_cast<unsigned long long>(from + (to - from) / 2)}) {
      const tn::TransferTuning* x = tn::lookup_transfer(r.at("machine"), r.at("direction"), r.at("pattern"), r.at("choice"), b);
      const std::string what = "transfer " + r.at("direction") + " " + r.at("pattern") + " " + r.at("choice") + " " +
                               std::to_string(b) + " bytes";
      expect(x != nullptr, what + ": found");
      if (!x) continue;
      expect(x->from_bytes == from, what + ": bucket " + std::to_string(x->from_bytes) + " != " + std::to_string(from));
      expect(r.at("mechanism") == x->mechanism, what + ": mechanism " + x->mechanism + " != " + r.at("mechanism"));
      expect(ll(r.at("sms")) == x->sms, what + ": sms");
      expect(ll(r.at("threads")) == x->threads, what + ": threads");
      expect(ll(r.at("min_sms_90")) == x->min_sms_90, what + ": min_sms_90");
      expect(std::abs(std::stod(r.at("gbps")) - x->gbps) <= 1e-3 * std::abs(x->gbps), what + ": gbps");
      ++checked;
    }
  }
  // Below every bucket: the smallest; unknown machine: nothing.
  if (!t.rows.empty()) {
    const auto& r = t.rows.front();
    const tn::TransferTuning* x = tn::lookup_transfer(r.at("machine"), r.at("direction"), r.at("pattern"), r.at("choice"), 1);
    expect(x && x->from_bytes <= ll(r.at("from_bytes")), "transfer: size below every bucket");
    expect(tn::lookup_transfer("no_such_machine", "push", "one_way", "any", 4096) == nullptr, "unknown machine");
  }
  // Constant evaluation works (another project can choose at compile time).
  static_assert(tn::kTransferTuningRows == 0 ||
                    tn::lookup_transfer(tn::kTransferTuning[0].machine, tn::kTransferTuning[0].direction,
                                        tn::kTransferTuning[0].pattern, tn::kTransferTuning[0].choice,
                                        static_cast<unsigned long long>(tn::kTransferTuning[0].from_bytes)) != nullptr,
                "constexpr lookup");

  const Csv c = read(argv[2]);
  expect(c.rows.size() == tn::kCollectivesTuningRows, "collectives row count");
  for (const auto& r : c.rows) {
    const tn::CollectivesTuning* x = tn::lookup_collectives(r.at("machine"), r.at("collective"), r.at("dtype"),
                                                            ll(r.at("gpus")), r.at("launch_mode"),
                                                            static_cast<unsigned long long>(ll(r.at("to_bytes"))));
    expect(x && r.at("impl") == x->impl, "collectives " + r.at("collective") + " " + r.at("from_bytes"));
    ++checked;
  }
  const Csv fu = read(argv[3]);
  expect(fu.rows.size() == tn::kFusedTuningRows, "fused row count");
  for (const auto& r : fu.rows) {
    const tn::FusedTuning* x =
        tn::lookup_fused(r.at("machine"), r.at("op"), ll(r.at("gpus")), ll(r.at("m")), ll(r.at("n")), ll(r.at("k")));
    expect(x && r.at("overlap") == x->overlap && ll(r.at("comm_sms")) == x->comm_sms, "fused " + r.at("op"));
    ++checked;
  }
  // pkbench/tuning.h: compiled tables and the JSON files agree, per machine of the transfer table.
  std::map<std::string, int> machines;
  for (const auto& r : t.rows) ++machines[r.at("machine")];
  for (const auto& [m, n] : machines) {
    tn::Tuner compiled(m), json(m);
    compiled.load_compiled();
    for (const char* table : {argv[1], argv[2], argv[3]}) {
      std::string path = table;
      path.replace(path.size() - 4, 4, ".json");
      try {
        json.load_json_file(path);
      } catch (const tn::Error& e) {  // a table of other machines only
        expect(std::string(e.what()).find("not on " + m) != std::string::npos, std::string("json refusal: ") + e.what());
      }
    }
    for (const auto& r : t.rows) {
      if (r.at("machine") != m) continue;
      std::string sizes = r.at("sizes_measured");
      for (char& ch : sizes)
        if (ch == ';') ch = ' ';
      std::istringstream is(sizes);
      unsigned long long s = 0;
      std::vector<unsigned long long> probe = {static_cast<unsigned long long>(ll(r.at("to_bytes"))) + 1};
      while (is >> s) probe.push_back(s), probe.push_back(s + 16);
      for (unsigned long long b : probe) {
        const auto a = compiled.choose_transfer(b, r.at("direction"), 1, -1, r.at("choice") == "device", r.at("pattern"));
        const auto j = json.choose_transfer(b, r.at("direction"), 1, -1, r.at("choice") == "device", r.at("pattern"));
        const std::string what = m + " transfer " + r.at("direction") + " " + r.at("pattern") + " " + std::to_string(b);
        expect(a.basis == j.basis && a.mechanism == j.mechanism && a.sms == j.sms && a.from == j.from,
               what + ": compiled and JSON differ (" + a.why + " | " + j.why + ")");
        if ((" " + sizes + " ").find(" " + std::to_string(b) + " ") != std::string::npos)
          expect(a.basis == tn::Basis::measured && a.mechanism == r.at("mechanism"), what + ": " + a.why);
        ++checked;
      }
    }
  }
  try {
    tn::Tuner nowhere("b300x64");
    nowhere.load_compiled();
    expect(false, "a header without b300x64 tables was accepted");
  } catch (const tn::Error&) {
  }
  std::printf("%zu lookups checked against the CSVs, %d failures\n", checked, failures);
  return failures ? 1 : 0;
}
