#include "sweeps/tuning_loo.h"

#include <cstdio>

namespace pk::sweeps {

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
