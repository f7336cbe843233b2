#include "transfer_table.h"

#include "../microbench/transfer/mechanism.h"
#include "csv_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace pk::sweeps {
namespace {

std::string size_text(uint64_t b) {
  const char* u[] = {"B", "KiB", "MiB", "GiB"};
  int i = 0;
  while (i < 3 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    ++i;
  }
  return std::to_string(b) + " " + u[i];
}

std::string num(double v, int prec = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

}  // namespace

const std::vector<std::string>& transfer_knob_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> k;
    for (const auto& knob : pk::transfer::all_knobs()) k.push_back(knob.name);
    return k;
  }();
  return v;
}

std::string TransferRow::config() const {
  if (knobs.empty()) return mechanism == "ce" ? "copy engine" : "defaults";
  std::string c;
  for (const auto& k : transfer_knob_columns())
    if (auto it = knobs.find(k); it != knobs.end()) c += (c.empty() ? "" : " ") + k + "=" + std::to_string(it->second);
  return c;
}

std::string TransferRow::config_key() const {
  std::string c;
  for (const auto& k : transfer_knob_columns())
    if (auto it = knobs.find(k); it != knobs.end() && k != "sms")
      c += (c.empty() ? "" : " ") + k + "=" + std::to_string(it->second);
  return c;
}

std::vector<TransferRow> read_transfer_csv(const std::string& path) {
  std::vector<std::string> required = {"study", "sweep", "mechanism", "direction", "pattern", "message_bytes",
                                       "gbps", "line_rate_gbps", "status", "gpu_name"};
  for (const auto& k : transfer_knob_columns()) required.push_back(k);
  const CsvTable t = CsvTable::read(path, required);
  std::vector<TransferRow> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok" || t.text(i, "study") != "transfer") continue;
    TransferRow r;
    r.sweep = t.text(i, "sweep");
    r.mechanism = t.text(i, "mechanism");
    r.direction = t.text(i, "direction");
    r.pattern = t.text(i, "pattern");
    r.status = t.text(i, "status");
    r.gpu_name = t.text(i, "gpu_name");
    r.message_bytes = static_cast<uint64_t>(t.integer(i, "message_bytes"));
    for (const auto& k : transfer_knob_columns())
      if (!t.text(i, k).empty()) r.knobs[k] = static_cast<int>(t.integer(i, k));
    r.sms = r.knobs.count("sms") ? r.knobs["sms"] : 0;
    r.gbps = t.number(i, "gbps");
    r.line_rate_gbps = t.number(i, "line_rate_gbps");
    out.push_back(r);
  }
  return out;
}

std::vector<MechanismSummary> summarize_mechanisms(const std::vector<TransferRow>& rows) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const TransferRow*>> groups;
  for (const auto& r : rows)
    if (r.pattern != "local") groups[{r.direction, r.pattern, r.mechanism}].push_back(&r);
  std::vector<MechanismSummary> out;
  for (const auto& [key, rs] : groups) {
    MechanismSummary s;
    std::tie(s.direction, s.pattern, s.mechanism) = key;
    const TransferRow* peak = *std::max_element(rs.begin(), rs.end(), [](auto a, auto b) { return a->gbps < b->gbps; });
    s.peak_gbps = peak->gbps;
    s.peak_config = peak->config();
    s.peak_message = peak->message_bytes;
    s.line_rate_gbps = peak->line_rate_gbps;
    std::map<uint64_t, double> best_at_msg;
    std::map<int, std::pair<double, uint64_t>> best_at_sms;
    for (const TransferRow* r : rs) {
      best_at_msg[r->message_bytes] = std::max(best_at_msg[r->message_bytes], r->gbps);
      if (r->device_initiated() && best_at_sms[r->sms].first < r->gbps) best_at_sms[r->sms] = {r->gbps, r->message_bytes};
    }
    for (const auto& [m, g] : best_at_msg)
      if (g >= 0.9 * s.peak_gbps) {
        s.min_message_90 = m;
        break;
      }
    if (s.line_rate_gbps > 0)
      for (const auto& [m, g] : best_at_msg)
        if (g >= 0.8 * s.line_rate_gbps) {
          s.min_message_80_line = m;
          break;
        }
    for (const auto& [sm, gm] : best_at_sms)
      if (gm.first >= 0.9 * s.peak_gbps) {
        s.min_sms_90 = sm;
        s.min_sms_90_message = gm.second;
        break;
      }
    out.push_back(s);
  }
  return out;
}

namespace {

// Fewest SMs at which the same mechanism/config/message/direction/pattern stays within 10 %.
int fewest_sms_within(const std::vector<TransferRow>& rows, const TransferRow& best, double* gbps_at, bool* swept) {
  std::map<int, double> by_sms;
  for (const auto& r : rows)
    if (r.mechanism == best.mechanism && r.direction == best.direction && r.pattern == best.pattern &&
        r.message_bytes == best.message_bytes && r.config_key() == best.config_key())
      by_sms[r.sms] = std::max(by_sms[r.sms], r.gbps);
  *swept = by_sms.size() > 1;
  for (const auto& [sm, g] : by_sms)
    if (g >= 0.9 * best.gbps) {
      *gbps_at = g;
      return sm;
    }
  *gbps_at = best.gbps;
  return best.sms;
}

}  // namespace

std::vector<TuningEntry> tuning_table(const std::vector<TransferRow>& rows) {
  std::map<std::tuple<std::string, std::string, uint64_t>, std::vector<const TransferRow*>> groups;
  for (const auto& r : rows)
    if (r.pattern != "local") groups[{r.direction, r.pattern, r.message_bytes}].push_back(&r);
  std::vector<TuningEntry> out;
  for (const auto& [key, rs] : groups) {
    TuningEntry e;
    std::tie(e.direction, e.pattern, e.message_bytes) = key;
    const TransferRow* best = nullptr;
    const TransferRow* dev = nullptr;
    for (const TransferRow* r : rs) {
      if (!best || r->gbps > best->gbps) best = r;
      if (r->device_initiated() && (!dev || r->gbps > dev->gbps)) dev = r;
    }
    e.best = *best;
    double unused = 0;
    e.best_min_sms = best->device_initiated() ? fewest_sms_within(rows, *best, &unused, &e.best_sm_swept) : 0;
    if (dev) {
      e.has_device = true;
      e.device = *dev;
      e.device_min_sms = fewest_sms_within(rows, *dev, &e.device_gbps_at_min_sms, &e.device_sm_swept);
    }
    out.push_back(e);
  }
  return out;
}

std::string tuning_csv(const std::vector<TuningEntry>& t) {
  // Knob columns derive from the mechanisms' declarations: best_<knob>, device_<knob>.
  const auto& knobs = transfer_knob_columns();
  std::ostringstream os;
  os << "direction,pattern,message_bytes,best_mechanism,best_gbps,best_pct_of_line_rate";
  for (const auto& k : knobs) os << ",best_" << k;
  os << ",best_min_sms_within_10pct,best_sm_swept,device_mechanism,device_gbps";
  for (const auto& k : knobs) os << ",device_" << k;
  os << ",device_min_sms_within_10pct,device_gbps_at_min_sms,device_sm_swept\n";
  auto knob_cells = [&](const TransferRow& r) {
    std::string c;
    for (const auto& k : knobs) {
      auto it = r.knobs.find(k);
      c += "," + (it == r.knobs.end() ? std::string() : std::to_string(it->second));
    }
    return c;
  };
  for (const auto& e : t) {
    const auto& b = e.best;
    os << e.direction << ',' << e.pattern << ',' << e.message_bytes << ',' << b.mechanism << ',' << num(b.gbps, 2) << ','
       << (b.line_rate_gbps > 0 ? num(100 * b.gbps / b.line_rate_gbps, 1) : "") << knob_cells(b) << ','
       << e.best_min_sms << ',' << (e.best_sm_swept ? "yes" : "no") << ',';
    if (e.has_device) {
      const auto& d = e.device;
      os << d.mechanism << ',' << num(d.gbps, 2) << knob_cells(d) << ',' << e.device_min_sms << ','
         << num(e.device_gbps_at_min_sms, 2) << ',' << (e.device_sm_swept ? "yes" : "no");
    } else {
      os << ',' << std::string(knobs.size() + 4, ',');
    }
    os << '\n';
  }
  return os.str();
}

namespace {

const MechanismSummary* find(const std::vector<MechanismSummary>& s, const std::string& mech, const std::string& dir,
                             const std::string& pat = "one_way") {
  for (const auto& x : s)
    if (x.mechanism == mech && x.direction == dir && x.pattern == pat) return &x;
  return nullptr;
}

double best_at(const std::vector<TransferRow>& rows, const std::string& mech, const std::string& dir, uint64_t msg) {
  double g = 0;
  for (const auto& r : rows)
    if (r.mechanism == mech && r.direction == dir && r.pattern == "one_way" && r.message_bytes == msg)
      g = std::max(g, r.gbps);
  return g;
}

}  // namespace

std::string summary_markdown(const std::vector<TransferRow>& rows, const std::vector<MechanismSummary>& s,
                             double elapsed_s) {
  std::ostringstream os;
  std::set<std::string> gpus;
  for (const auto& r : rows) gpus.insert(r.gpu_name);
  os << "# Transfer mechanisms: summary\n\n";
  os << "GPU: ";
  for (const auto& g : gpus) os << g << ' ';
  os << "\n\nGenerated by `pkbench_transfer_summary` from the transfer CSV beside this file; every number below is "
        "a measured row of it (median of the samples). Bandwidth is per direction, GB = 1e9 B; \"% line\" is against "
        "the NVLink line rate read from NVML (column `line_rate_source` of the CSV).\n\n";
  os << "## Per mechanism (Table 1 of the paper)\n\n";
  os << "| direction | pattern | mechanism | peak GB/s | % line | config at peak (message) | smallest message "
        ">= 90 % of peak | fewest SMs >= 90 % of peak (message) | smallest message >= 80 % of line |\n";
  os << "|---|---|---|---:|---:|---|---|---|---|\n";
  for (const auto& x : s) {
    os << "| " << x.direction << " | " << x.pattern << " | " << x.mechanism << " | " << num(x.peak_gbps) << " | "
       << (x.line_rate_gbps > 0 ? num(x.pct_line()) : "-") << " | " << x.peak_config << " (" << size_text(x.peak_message)
       << ") | " << (x.min_message_90 ? size_text(x.min_message_90) : "-") << " | "
       << (x.min_sms_90 ? std::to_string(x.min_sms_90) + " (" + size_text(x.min_sms_90_message) + ")" : "-") << " | "
       << (x.min_message_80_line ? size_text(x.min_message_80_line) : "never") << " |\n";
  }
  bool any_local = false;
  for (const auto& r : rows) any_local |= r.pattern == "local";
  if (any_local) {
    os << "\nSame-run ceiling, a copy within one GPU's HBM (bytes copied per second; the memory moves twice "
          "that, read plus write):";
    for (const auto& r : rows)
      if (r.pattern == "local") os << " " << r.mechanism << " " << num(r.gbps) << " GB/s (" << size_text(r.message_bytes) << ");";
    os << "\n";
  }
  os << "\n## Targets (issue: foundation and transfer study)\n\n";
  auto verdict = [](bool ok) { return ok ? "**met**" : "**missed**"; };
  const MechanismSummary* ce_push = find(s, "ce", "push");
  for (const std::string dir : {"push", "pull", "mixed"}) {
    const MechanismSummary* ce = find(s, "ce", dir);
    const MechanismSummary* best_dev = nullptr;
    for (const auto& x : s)
      if (x.mechanism != "ce" && x.direction == dir && x.pattern == "one_way" &&
          (!best_dev || x.peak_gbps > best_dev->peak_gbps))
        best_dev = &x;
    if (ce_push && best_dev) {
      double ratio = best_dev->peak_gbps / ce_push->peak_gbps;
      os << "- " << dir << ": best device-initiated mechanism (" << best_dev->mechanism << ", "
         << num(best_dev->peak_gbps) << " GB/s) / copy engine best push (" << num(ce_push->peak_gbps)
         << " GB/s) = " << num(ratio, 3) << " (target >= 0.97): " << verdict(ratio >= 0.97);
      if (ce && dir != "push")
        os << "; copy engine " << dir << " best " << num(ce->peak_gbps) << " GB/s (ratio "
           << num(best_dev->peak_gbps / ce->peak_gbps, 3) << ")";
      os << "\n";
    }
  }
  for (const std::string m : {"tma_bulk", "tma_tile"})
    for (const std::string dir : {"push", "pull"}) {
      const MechanismSummary* x = find(s, m, dir);
      if (!x) continue;
      double at2k = best_at(rows, m, dir, 2048);
      if (at2k > 0)
        os << "- " << m << " " << dir << ": at 2 KiB messages " << num(at2k) << " GB/s = " << num(100 * at2k / x->peak_gbps)
           << " % of its peak (target >= 90 %): " << verdict(at2k >= 0.9 * x->peak_gbps) << "\n";
      if (x->min_sms_90)
        os << "- " << m << " " << dir << ": 90 % of its peak with " << x->min_sms_90 << " SMs (target <= 16): "
           << verdict(x->min_sms_90 <= 16) << "\n";
    }
  for (const std::string dir : {"push", "pull"})
    if (const MechanismSummary* ce = find(s, "ce", dir)) {
      os << "- copy engine " << dir << ": passes 80 % of line rate at "
         << (ce->min_message_80_line ? size_text(ce->min_message_80_line) : std::string("no message size"))
         << " per call; reaches 90 % of its own peak at " << size_text(ce->min_message_90) << " per call\n";
    }
  if (elapsed_s >= 0) {
    os << "- study wall time including the build: " << num(elapsed_s, 0) << " s (target <= 240 s): "
       << verdict(elapsed_s <= 240) << "\n";
  }
  return os.str();
}

}  // namespace pk::sweeps
