#include "microbench/harness/tuning_loo.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "microbench/harness/tuning_table.h"
#include "pkbench/tuning.h"

namespace pk {

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

int LooCsv::col(const std::string& n) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == n) return static_cast<int>(i);
  throw std::runtime_error("column '" + n + "' missing");
}
bool LooCsv::has(const std::string& n) const { return std::find(header.begin(), header.end(), n) != header.end(); }

LooCsv read_loo_csv(const std::string& path) {
  const CsvRows r = read_table_csv(path);
  return {r.header, r.rows};
}

std::string write_loo_csv(const LooCsv& c, const std::string& tag,
                          const std::function<bool(const std::vector<std::string>&)>& keep) {
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

long long loo_int(const std::string& s) { return std::strtoll(s.c_str(), nullptr, 10); }
double loo_real(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

std::string loo_machine(const LooCsv& c) {
  namespace tn = pkbench::tuning;
  if (c.rows.empty()) return "";
  const std::string m =
      tn::machine_key(c.rows[0][c.col("gpu_name")], static_cast<int>(loo_int(c.rows[0][c.col("gpu_count")])));
  if (c.has("peer_mode") && c.rows[0][c.col("peer_mode")] == "virtual")
    return tn::virtual_machine_key(m, static_cast<int>(loo_int(c.rows[0][c.col("gpus")])));
  return m;
}

}  // namespace pk
