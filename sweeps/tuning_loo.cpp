#include "sweeps/tuning_loo.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <unistd.h>

#include "microbench/collectives/collectives_analysis.h"
#include "microbench/harness/format.h"
#include "microbench/fused/fused_analysis.h"
#include "pkbench/tuning.h"
#include "microbench/transfer/transfer_analysis.h"
#include "sweeps/tuning_writers.h"

namespace pk::sweeps {

namespace tn = pkbench::tuning;

int LooResult::refused() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const LooCase& c) { return c.basis == "refused"; }));
}
int LooResult::not_measured() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(),
                                        [](const LooCase& c) { return c.basis != "refused" && !c.evaluable(); }));
}
int LooResult::evaluable() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const LooCase& c) { return c.evaluable(); }));
}
int LooResult::within() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [&](const LooCase& c) {
    return c.evaluable() && c.ratio() <= 1 + tolerance + 1e-12;
  }));
}
const LooCase* LooResult::worst() const {
  const LooCase* w = nullptr;
  for (const auto& c : cases)
    if (c.evaluable() && (!w || c.ratio() > w->ratio())) w = &c;
  return w;
}

namespace {

// A CSV as text rows (values never hold commas: the studies replace them), and a copy of it
// without some rows, for the table builders that read a path.
struct TextCsv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int col(const std::string& n) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == n) return static_cast<int>(i);
    throw std::runtime_error("column '" + n + "' missing");
  }
  bool has(const std::string& n) const { return std::find(header.begin(), header.end(), n) != header.end(); }
};

TextCsv read_text(const std::string& path) {
  const CsvRows r = read_table_csv(path);
  return {r.header, r.rows};
}

template <class Keep>
std::string write_without(const TextCsv& c, const std::string& tag, Keep keep) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("pkbench_loo_" + std::to_string(::getpid()) + "_" + tag + ".csv");
  std::ofstream f(path, std::ios::trunc);
  for (size_t i = 0; i < c.header.size(); ++i) f << (i ? "," : "") << c.header[i];
  f << '\n';
  for (const auto& r : c.rows) {
    if (!keep(r)) continue;
    for (size_t i = 0; i < r.size(); ++i) f << (i ? "," : "") << r[i];
    f << '\n';
  }
  if (!f) throw std::runtime_error("cannot write " + path.string());
  return path.string();
}

// Error and skipped rows may leave numbers empty: 0 there.
long long num(const std::string& s) { return std::strtoll(s.c_str(), nullptr, 10); }
double real(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// Virtual ranks' rows name their own machine (collectives_tuning, fused_tuning): one rank
// count per CSV.
std::string machine_of(const TextCsv& c) {
  if (c.rows.empty()) return "";
  const std::string m = tn::machine_key(c.rows[0][c.col("gpu_name")], static_cast<int>(num(c.rows[0][c.col("gpu_count")])));
  if (c.has("peer_mode") && c.rows[0][c.col("peer_mode")] == "virtual")
    return tn::virtual_machine_key(m, static_cast<int>(num(c.rows[0][c.col("gpus")])));
  return m;
}

}  // namespace

std::vector<LooResult> loo_transfer(const std::string& csv, double tol) {
  const pk::transfer::TransferData d = pk::transfer::read_transfer(csv);
  const std::string machine = d.machine.key();
  std::set<std::tuple<std::string, std::string, uint64_t>> points;
  for (const auto& r : d.rows)
    if (r.pattern != "local") points.insert({r.direction, r.pattern, r.message_bytes});
  // The answer's knobs as TransferChoice names them.
  auto knobs_of = [](const tn::TransferChoice& a) {
    return std::map<std::string, int>{{"sms", a.sms},       {"threads", a.threads},     {"blocks_per_sm", a.blocks_per_sm},
                                      {"pipeline_depth", a.pipeline_depth}, {"vec_bytes", a.vec_bytes}, {"unroll", a.unroll}};
  };
  std::vector<LooResult> out;
  for (const bool device : {false, true}) {
    LooResult res;
    res.table = std::string("transfer (") + (device ? "device" : "any") + ")";
    res.source = csv;
    res.tolerance = tol;
    for (const auto& [dir, pat, bytes] : points) {
      pk::transfer::TransferData h = d;
      h.rows.erase(std::remove_if(h.rows.begin(), h.rows.end(),
                                  [&](const pk::transfer::TransferRow& r) {
                                    return r.direction == dir && r.pattern == pat && r.message_bytes == bytes;
                                  }),
                   h.rows.end());
      LooCase c;
      c.table = res.table;
      c.csv = csv;
      c.point = dir + " " + pat + " " + std::to_string(bytes) + " B";
      const pk::transfer::TransferRow* best = nullptr;
      for (const auto& r : d.rows)
        if (r.direction == dir && r.pattern == pat && r.message_bytes == bytes && (!device || r.device_initiated()) &&
            (!best || r.gbps > best->gbps))
          best = &r;
      if (!best) continue;  // device choice: only the copy engine was measured here
      c.best = best->mechanism + " " + best->config();
      c.best_us = bytes / best->gbps / 1e3;
      tn::TransferChoice a;
      try {
        tn::Tuner t(machine);
        t.add(api_table(pk::transfer::transfer_tuning(h)));
        a = t.choose_transfer(bytes, dir, 1, -1, device, pat);
      } catch (const tn::Error& e) {
        a.why = e.what();  // nothing else measured for these keys
      }
      c.basis = tn::to_string(a.basis);
      if (!a.ok()) {
        c.answer = a.why;
        res.cases.push_back(c);
        continue;
      }
      const auto knobs = knobs_of(a);
      std::string conf = a.mechanism;
      for (const auto& k : pk::transfer::transfer_knob_columns())
        if (knobs.count(k) && knobs.at(k)) conf += " " + k + "=" + std::to_string(knobs.at(k));
      c.answer = conf;
      for (const auto& r : d.rows) {
        if (r.direction != dir || r.pattern != pat || r.message_bytes != bytes || r.mechanism != a.mechanism) continue;
        bool same = true;
        for (const auto& k : pk::transfer::transfer_knob_columns())
          if (knobs.count(k)) same &= r.knob(k) == knobs.at(k);
        if (same && r.gbps > 0 && (c.answer_us == 0 || bytes / r.gbps / 1e3 < c.answer_us)) c.answer_us = bytes / r.gbps / 1e3;
      }
      res.cases.push_back(c);
    }
    out.push_back(std::move(res));
  }
  return out;
}

LooResult loo_collectives(const std::string& csv, double tol) {
  const TextCsv c = read_text(csv);
  const int coll = c.col("collective"), dtype = c.col("dtype"), gpus = c.col("gpus"), mode = c.col("launch_mode"),
            bytes = c.col("bytes"), impl = c.col("impl"), config = c.col("config"), status = c.col("status"),
            t_med = c.col("time_us_median");
  const std::string machine = machine_of(c);
  using Key = std::tuple<std::string, std::string, std::string, std::string, long long>;
  auto key = [&](const std::vector<std::string>& r) {
    return Key{r[coll], r[dtype], r[gpus], r[mode], num(r[bytes])};
  };
  // `tuned` rows (answered from a table) are neither candidates nor the best.
  const int family = c.col("family");
  auto measured = [&](const std::vector<std::string>& r) { return r[status] == "ok" && r[family] != "tuned"; };
  std::set<Key> points;
  for (const auto& r : c.rows)
    if (measured(r)) points.insert(key(r));
  LooResult res;
  res.table = "collectives (" + std::filesystem::path(csv).filename().string() + ")";
  res.source = csv;
  res.tolerance = tol;
  for (const Key& p : points) {
    const auto& [cl, dt, g, m, b] = p;
    LooCase lc;
    lc.table = res.table;
    lc.csv = csv;
    lc.point = cl + " " + dt + " " + g + " GPUs " + m + " " + std::to_string(b) + " B";
    for (const auto& r : c.rows)
      if (measured(r) && key(r) == p && (lc.best_us == 0 || real(r[t_med]) < lc.best_us))
        lc.best_us = real(r[t_med]), lc.best = r[impl] + " (" + r[config] + ")";
    const std::string tmp = write_without(c, "coll", [&](const std::vector<std::string>& r) { return key(r) != p; });
    tn::CollectiveChoice a;
    try {
      tn::Tuner t(machine);
      t.add(api_table(pk::coll::collectives_tuning(tmp)));
      a = t.choose_collective(cl, static_cast<unsigned long long>(b), dt, static_cast<int>(num(g)), m);
    } catch (const tn::Error& e) {
      a.why = e.what();
    }
    std::filesystem::remove(tmp);
    lc.basis = tn::to_string(a.basis);
    lc.answer = a.ok() ? a.impl + " (" + a.config + ")" : a.why;
    // The answered configuration: its grid (sms, threads) where the CSV has the knob columns,
    // else its config text. Where it was not run at this size (auto grids differ by size), the
    // implementation's own run there stands for it (said in the answer).
    const int sms = c.has("sms") ? c.col("sms") : -1, threads = c.has("threads") ? c.col("threads") : -1;
    auto same = [&](const std::vector<std::string>& r) {
      if (sms >= 0 && a.sms > 0) return num(r[sms]) == a.sms && num(r[threads]) == a.threads;
      return r[config] == a.config;
    };
    for (const bool exact : {true, false}) {
      if (!a.ok() || lc.answer_us > 0) break;
      for (const auto& r : c.rows)
        if (measured(r) && key(r) == p && r[impl] == a.impl && (!exact || same(r)) &&
            (lc.answer_us == 0 || real(r[t_med]) < lc.answer_us)) {
          lc.answer_us = real(r[t_med]);
          if (!exact) lc.answer = a.impl + " (its own grid here: " + r[config] + ")";
        }
    }
    res.cases.push_back(lc);
  }
  return res;
}

LooResult loo_fused(const std::vector<std::string>& csvs, double tol) {
  std::vector<TextCsv> all;
  for (const auto& p : csvs) all.push_back(read_text(p));
  using Shape = std::tuple<std::string, long long, long long, long long, long long>;  // op, gpus, m, n, k
  auto shape = [](const TextCsv& c, const std::vector<std::string>& r) {
    return Shape{r[c.col("op")], num(r[c.col("gpus")]), num(r[c.col("m")]), num(r[c.col("n")]),
                 num(r[c.col("k")])};
  };
  auto candidate = [](const TextCsv& c, const std::vector<std::string>& r) {
    const std::string& o = r[c.col("overlap")];
    return r[c.col("status")] == "ok" && (o == "intra_sm" || o == "inter_sm");
  };
  std::set<Shape> shapes;
  for (const auto& c : all)
    for (const auto& r : c.rows)
      if (candidate(c, r)) shapes.insert(shape(c, r));
  LooResult res;
  res.table = "fused";
  for (const auto& p : csvs) res.source += (res.source.empty() ? "" : " ") + p;
  res.tolerance = tol;
  for (const Shape& s : shapes) {
    const auto& [op, g, m, n, k] = s;
    tn::SplitChoice a;
    try {
      tn::Tuner t(machine_of(all[0]));
      for (size_t i = 0; i < all.size(); ++i) {
        const std::string tmp =
            write_without(all[i], "fused" + std::to_string(i), [&](const std::vector<std::string>& r) { return shape(all[i], r) != s; });
        const TuningTable tt = pk::fused::fused_tuning(tmp);
        std::filesystem::remove(tmp);
        if (!tt.rows.empty()) t.add(api_table(tt));
      }
      a = t.choose_split(op, m, n, k, static_cast<int>(g));
    } catch (const tn::Error& e) {
      a.why = e.what();
    }
    for (size_t i = 0; i < all.size(); ++i) {
      const TextCsv& c = all[i];
      LooCase lc;
      lc.table = res.table;
      lc.csv = csvs[i];
      lc.point = op + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " on " + std::to_string(g);
      auto conf = [&](const std::vector<std::string>& r) {
        return r[c.col("overlap")] + " " + r[c.col("impl")] + " comm_sms=" + r[c.col("comm_sms")];
      };
      for (const auto& r : c.rows)
        if (candidate(c, r) && shape(c, r) == s) {
          const double us = real(r[c.col("time_us_median")]);
          if (lc.best_us == 0 || us < lc.best_us) lc.best_us = us, lc.best = conf(r);
          if (a.ok() && r[c.col("overlap")] == a.overlap && r[c.col("impl")] == a.impl &&
              num(r[c.col("comm_sms")]) == a.comm_sms && (lc.answer_us == 0 || us < lc.answer_us))
            lc.answer_us = us;
        }
      if (lc.best_us == 0) continue;  // this CSV did not measure the shape
      lc.basis = tn::to_string(a.basis);
      lc.answer = a.ok() ? a.overlap + " " + a.impl + " comm_sms=" + std::to_string(a.comm_sms) : a.why;
      res.cases.push_back(lc);
    }
  }
  return res;
}

std::string loo_markdown(const std::vector<LooResult>& results) {
  std::string o =
      "| table | hidden points | refused (outside the range) | answer not measured there | evaluable | within | "
      "fraction within | worst case |\n|---|---:|---:|---:|---:|---:|---:|---|\n";
  int hidden = 0, refused = 0, nm = 0, ev = 0, within = 0;
  const LooCase* worst = nullptr;
  for (const auto& r : results) {
    const LooCase* w = r.worst();
    char frac[32] = "-";
    if (r.evaluable()) std::snprintf(frac, sizeof frac, "%.1f %%", 100.0 * r.within() / r.evaluable());
    char ws[512] = "-";
    if (w)
      std::snprintf(ws, sizeof ws, "%s: %s %.4g us vs best %s %.4g us (%.3fx)", w->point.c_str(), w->answer.c_str(),
                    w->answer_us, w->best.c_str(), w->best_us, w->ratio());
    o += "| " + r.table + " | " + std::to_string(r.cases.size()) + " | " + std::to_string(r.refused()) + " | " +
         std::to_string(r.not_measured()) + " | " + std::to_string(r.evaluable()) + " | " + std::to_string(r.within()) +
         " | " + frac + " | " + ws + " |\n";
    hidden += static_cast<int>(r.cases.size());
    refused += r.refused(), nm += r.not_measured(), ev += r.evaluable(), within += r.within();
    if (w && (!worst || w->ratio() > worst->ratio())) worst = w;
  }
  char frac[32] = "-";
  if (ev) std::snprintf(frac, sizeof frac, "%.1f %%", 100.0 * within / ev);
  char ws[64] = "-";
  if (worst) std::snprintf(ws, sizeof ws, "%.3fx (%s)", worst->ratio(), worst->table.c_str());
  o += "| all | " + std::to_string(hidden) + " | " + std::to_string(refused) + " | " + std::to_string(nm) + " | " +
       std::to_string(ev) + " | " + std::to_string(within) + " | " + frac + " | " + ws + " |\n";
  return o;
}

std::string loo_csv(const std::vector<LooResult>& results) {
  std::string o = "table,csv,point,basis,answer,answer_us,best,best_us,ratio,within\n";
  auto clean = [](std::string s) {
    for (char& c : s)
      if (c == ',' || c == '\n' || c == '"') c = ';';
    return s;
  };
  for (const auto& r : results)
    for (const auto& c : r.cases) {
      char nums[128];
      std::snprintf(nums, sizeof nums, "%.6g", c.answer_us);
      std::string line = clean(c.table) + "," + clean(c.csv) + "," + clean(c.point) + "," + c.basis + "," +
                         clean(c.answer) + "," + (c.answer_us > 0 ? nums : "") + "," + clean(c.best) + ",";
      std::snprintf(nums, sizeof nums, "%.6g", c.best_us);
      line += std::string(nums) + ",";
      if (c.evaluable()) {
        std::snprintf(nums, sizeof nums, "%.4f", c.ratio());
        line += std::string(nums) + "," + (c.ratio() <= 1 + r.tolerance + 1e-12 ? "yes" : "no");
      } else {
        line += ",";
      }
      o += line + "\n";
    }
  return o;
}

}  // namespace pk::sweeps
