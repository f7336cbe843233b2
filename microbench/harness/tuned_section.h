#pragma once
// The summaries' "Tuned" section (collectives, fused): each `tuned` row -- the configuration a
// tuning table answered, asked through pkbench/tuning.h as a user's program asks -- against
// the same run's best measured row and the answered configuration's default.
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "pkbench/tuning.h"
#include "microbench/harness/format.h"

namespace pk {

inline constexpr double kTunedOfBestTarget = 0.97;  // issue 21: tuned >= 0.97x the best measured

// The machine a tuning row names. Virtual ranks (several on one GPU) measure HBM, not NVLink:
// their rows name a machine of their own, which only a run on the same virtual ranks matches
// (pkbench/tuning.h's virtual_machine_key): the studies' `tuned` rows.
inline std::string tuning_machine_key(const Machine& machine, const std::string& peer_mode, int64_t gpus) {
  const std::string key = machine.key();
  return peer_mode == "virtual" ? pkbench::tuning::virtual_machine_key(key, static_cast<int>(gpus)) : key;
}

struct TunedRatio {
  std::string answer;  // the row's tuning cell, or its status and reason when not ok
  double tuned_us = 0, best_us = 0, default_us = 0;
  std::string best, default_config;  // names of those rows
  double of_best() const { return tuned_us > 0 && best_us > 0 ? best_us / tuned_us : 0; }
  double over_default() const { return tuned_us > 0 && default_us > 0 ? default_us / tuned_us : 0; }
  // Another measured row of the point: the fastest is the best.
  void consider(double us, const std::string& name) {
    if (best_us == 0 || us < best_us) best_us = us, best = name;
  }
};

// One line of the section: the point's cells under the section's key columns, and its ratios.
using TunedLine = std::pair<std::vector<std::string>, TunedRatio>;

// `rules`: what best and default mean for the study (a sentence or two).
inline void tuned_section(std::ostream& os, const std::string& rules, const std::vector<std::string>& key_columns,
                          const std::vector<TunedLine>& lines) {
  if (lines.empty()) return;
  int ok = 0, near = 0;
  double worst = 0;
  for (const auto& [key, p] : lines)
    if (p.tuned_us > 0 && p.best_us > 0) {
      ++ok;
      near += p.of_best() >= kTunedOfBestTarget;
      if (worst == 0 || p.of_best() < worst) worst = p.of_best();
    }
  os << "\n## Tuned (configuration from a tuning table, through pkbench/tuning.h)\n\n"
     << rules << " tuned / best = best us / tuned us (1 = as fast as the best; target >= " << num(kTunedOfBestTarget, 2)
     << "), over default = default us / tuned us. " << near << " of " << ok << " measured points reach the target"
     << (ok ? ", worst " + num(worst, 3) : std::string()) << ".\n\n|";
  std::string rule = "|";
  for (const auto& c : key_columns) os << " " << c << " |", rule += "---|";
  os << " table's answer | tuned us | best (row) | best us | tuned / best | default us | over default |\n"
     << rule << "---|---:|---|---:|---:|---:|---:|\n";
  for (const auto& [key, p] : lines) {
    os << "|";
    for (const auto& k : key) os << " " << k << " |";
    os << " " << p.answer << " | " << us_cell(p.tuned_us) << " | " << (p.best.empty() ? "-" : p.best) << " | "
       << us_cell(p.best_us) << " | " << x_cell(p.of_best()) << " | " << us_cell(p.default_us) << " | "
       << x_cell(p.over_default()) << " |\n";
  }
}

}  // namespace pk
