#include "targets.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "format.h"

namespace fs = std::filesystem;

namespace pk::sweeps {

const std::vector<TargetSpec>& target_specs() {
  static const std::vector<TargetSpec> v = {
      {"transfer.device_vs_ce", "issue: foundation and transfer study",
       "best device-initiated peak / copy-engine best push peak, per direction", ">=", 0.97, ""},
      {"transfer.tma_2k", "issue: foundation and transfer study", "TMA at 2 KiB messages, % of its own peak", ">=", 90,
       " %"},
      {"transfer.tma_sms_90", "issue: foundation and transfer study", "SMs for TMA to reach 90 % of its peak", "<=", 16,
       " SMs"},
      {"transfer.wall_time", "issue: foundation and transfer study",
       "default transfer study wall time including the build", "<=", 240, " s"},
      {"peer_modes.transfer", "results/h200x2/peer-modes/README.md",
       "every mechanism's peak and fewest SMs to 90 % of it, ipc/vmm against single, within", "<=", 2, " %"},
      {"peer_modes.sync", "results/h200x2/peer-modes/README.md",
       "every cross-GPU latency, ipc/vmm against single, within", "<=", 5, " %"},
      {"gemm.vs_cublas", "issue: fused kernels (GEMM); results/*/gemm/README.md",
       "this suite's GEMM / cuBLASLt TFLOP/s at 8192^3 on the whole GPU", ">=", 0.90, ""},
      {"fused.vs_cublas_nccl", "issue: fused kernels; results/h200x2/fused/README.md",
       "best fused kernel's speedup over cuBLAS then NCCL wherever communication is >= 30 % of that baseline "
       "(lowest such shape)",
       ">=", 1.25, "x"},
      {"fused.vs_best_baseline", "issue: fused kernels; results/h200x2/fused/README.md",
       "best fused kernel against the best baseline (median ratio) wherever communication is < 30 % (lowest such "
       "shape)",
       ">=", 0.97, ""},
      {"fused.hidden_k", "issue: fused kernels; results/h200x2/fused/README.md",
       "GEMM+RS non-overlapped communication of the faster fused kernel at K >= 4096 (Table 3; highest such K)", "<=",
       5, " %"},
  };
  return v;
}

const TargetSpec& target_spec(const std::string& id) {
  for (const auto& s : target_specs())
    if (s.id == id) return s;
  throw std::logic_error("unknown target '" + id + "'");
}

std::string TargetSpec::text() const {
  std::string v = num(value, value == std::floor(value) ? 0 : 2);
  return op + " " + v + unit;
}

bool TargetSpec::holds(double measured) const { return op == ">=" ? measured >= value : measured <= value; }

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::met: return "met";
    case Verdict::missed: return "missed";
    case Verdict::info: return "info";
    case Verdict::not_measured: return "not measured";
  }
  return "";
}

std::string TargetResult::sentence() const {
  if (verdict == Verdict::info) return measured + note;
  return measured + " (target " + target + "): **" + verdict_text(verdict) + "**" + note;
}

namespace {

TargetResult judge(const std::string& id, const std::string& measured, double value) {
  const TargetSpec& s = target_spec(id);
  return TargetResult{id, measured, s.text(), s.holds(value) ? Verdict::met : Verdict::missed, ""};
}

// One table cell per mode after the first: its value over the first's (v[0]), "-" where a
// mode lacks the row. True when every ratio is within `limit` of 1 (and none is missing).
bool ratio_cells(std::ostream& os, const std::vector<double>& v, double limit) {
  bool ok = true;
  for (size_t i = 1; i < v.size(); ++i) {
    if (std::isnan(v[i])) {
      os << " - |";
      ok = false;
      continue;
    }
    const double q = v[i] / v[0];
    ok &= std::fabs(q - 1) <= limit;
    os << " " << num(q, 3) << " |";
  }
  return ok;
}
}  // namespace

std::vector<TargetResult> transfer_targets(const TransferData& d, const std::vector<MechanismSummary>& s,
                                           double elapsed_s) {
  std::vector<TargetResult> out;
  // Device-initiated = measured on SMs (derived from the rows, so a new mechanism needs no list).
  std::set<std::string> device;
  for (const auto& r : d.rows)
    if (r.device_initiated()) device.insert(r.mechanism);
  const MechanismSummary* ce_push = find_summary(s, "ce", "push");
  for (const std::string dir : {"push", "pull", "mixed"}) {
    const MechanismSummary* ce = find_summary(s, "ce", dir);
    const MechanismSummary* best_dev = nullptr;
    for (const auto& x : s)
      if (device.count(x.mechanism) && x.direction == dir && x.pattern == "one_way" &&
          (!best_dev || x.peak_gbps > best_dev->peak_gbps))
        best_dev = &x;
    if (ce_push && best_dev) {
      const double ratio = best_dev->peak_gbps / ce_push->peak_gbps;
      TargetResult t = judge("transfer.device_vs_ce",
                             dir + ": best device-initiated mechanism (" + best_dev->mechanism + ", " +
                                 num(best_dev->peak_gbps) + " GB/s) / copy engine best push (" + num(ce_push->peak_gbps) +
                                 " GB/s) = " + num(ratio, 3),
                             ratio);
      if (ce && dir != "push")
        t.note = "; copy engine " + dir + " best " + num(ce->peak_gbps) + " GB/s (ratio " +
                 num(best_dev->peak_gbps / ce->peak_gbps, 3) + ")";
      out.push_back(t);
    }
  }
  for (const std::string m : {"tma_bulk", "tma_tile"})
    for (const std::string dir : {"push", "pull"}) {
      const MechanismSummary* x = find_summary(s, m, dir);
      if (!x) continue;
      const double at2k = best_at(d.rows, m, dir, 2048);
      if (at2k > 0)
        out.push_back(judge("transfer.tma_2k",
                            m + " " + dir + ": at 2 KiB messages " + num(at2k) + " GB/s = " +
                                num(100 * at2k / x->peak_gbps) + " % of its peak",
                            100 * at2k / x->peak_gbps));
      if (x->min_sms_90)
        out.push_back(judge("transfer.tma_sms_90",
                            m + " " + dir + ": 90 % of its peak with " + std::to_string(x->min_sms_90) + " SMs",
                            x->min_sms_90));
    }
  for (const std::string dir : {"push", "pull"})
    if (const MechanismSummary* ce = find_summary(s, "ce", dir))
      out.push_back(TargetResult{"",
                                 "copy engine " + dir + ": passes 80 % of line rate at " +
                                     (ce->min_message_80_line ? size_text(ce->min_message_80_line)
                                                              : std::string("no message size")) +
                                     " per call; reaches 90 % of its own peak at " + size_text(ce->min_message_90) +
                                     " per call",
                                 "", Verdict::info, ""});
  if (elapsed_s >= 0)
    out.push_back(judge("transfer.wall_time",
                        "study wall time including the build: " + num(elapsed_s, 0) + " s", elapsed_s));
  return out;
}

std::vector<TargetResult> gemm_targets(const GemmData& d) {
  std::vector<TargetResult> out;
  const int full = gemm_full_sms(d);
  std::set<std::string> variants;
  for (const auto& r : d.rows)
    if (r.impl != "cublaslt") variants.insert(r.variant);
  for (const auto& v : variants) {
    const GemmRow* ref = find_gemm(d, "cublaslt", "", 8192, 8192, 8192, full);
    const GemmRow* pk = find_gemm(d, "pkbench", v, 8192, 8192, 8192, full);
    if (!ref || !pk) {
      out.push_back(TargetResult{"gemm.vs_cublas", "variant " + v + " at 8192^3 on " + std::to_string(full) + " SMs",
                                 target_spec("gemm.vs_cublas").text(), Verdict::not_measured, ""});
      continue;
    }
    const double ratio = pk->tflops / ref->tflops;
    out.push_back(judge("gemm.vs_cublas",
                        "GEMM " + v + " at 8192^3 on " + std::to_string(full) + " SMs: " + num(pk->tflops) +
                            " / cuBLASLt " + num(ref->tflops) + " TFLOP/s = " + num(ratio, 3),
                        ratio));
  }
  // Every other shape and SM count, as information: the lowest ratio.
  double worst = 1e9;
  std::string where_worst;
  for (const auto& r : d.rows) {
    if (r.impl == "cublaslt") continue;
    const GemmRow* ref = find_gemm(d, "cublaslt", "", r.m, r.n, r.k, r.sms);
    if (!ref || ref->tflops <= 0) continue;
    const double q = r.tflops / ref->tflops;
    if (q < worst) {
      worst = q;
      where_worst = r.variant + " " + r.shape() + " on " + std::to_string(r.sms) + " SMs";
    }
  }
  if (!where_worst.empty())
    out.push_back(TargetResult{"", "lowest ratio to cuBLASLt over every shape and SM count measured: " +
                                       num(worst, 3) + " (" + where_worst + ")",
                               "", Verdict::info, ""});
  return out;
}

std::string fused_op_text(const std::string& op) {
  if (op == "gemm_rs") return "GEMM+RS";
  if (op == "ag_gemm") return "AG+GEMM";
  if (op == "gemm_ar") return "GEMM+AR";
  return op;
}

std::vector<TargetResult> fused_targets(const FusedSummary& f, const std::vector<KSweepRow>& k_sweep) {
  std::vector<TargetResult> out;
  auto shape = [](const FusedShape& s) {
    return fused_op_text(s.op) + " " +
           (s.size_n ? "N = " + std::to_string(s.size_n)
                     : std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
  };
  // Where communication is >= 30 % of cuBLAS then NCCL: the best fused kernel's speedup over it.
  const FusedShape* low = nullptr;
  double low_v = 0;
  std::string all;
  // Elsewhere: the best fused kernel against the best baseline (cuBLAS then NCCL included).
  const FusedShape* low2 = nullptr;
  double low2_v = 0;
  std::string low2_base;
  for (const auto& s : f.shapes) {
    if (s.comm_share < 0 || s.best_fused_us() <= 0 || s.cublas_nccl_us <= 0) continue;
    if (s.comm_share >= 0.30) {
      const double v = s.speedup(s.best_fused_us());
      all += (all.empty() ? "" : ", ") + shape(s) + " " + num(v, 3);
      if (!low || v < low_v) low = &s, low_v = v;
    } else {
      const bool other = s.baseline_us > 0 && s.baseline_us < s.cublas_nccl_us;
      const double base = other ? s.baseline_us : s.cublas_nccl_us;
      const double v = base / s.best_fused_us();
      if (!low2 || v < low2_v) low2 = &s, low2_v = v, low2_base = other ? s.baseline_impl : "cublas_nccl";
    }
  }
  if (low)
    out.push_back(judge("fused.vs_cublas_nccl",
                        "lowest: " + shape(*low) + " " + std::string(low->best_fused()) + " " + num(low_v, 3) + "x (all: " +
                            all + ")",
                        low_v));
  if (low2)
    out.push_back(judge("fused.vs_best_baseline",
                        "lowest: " + shape(*low2) + " " + low2->best_fused() + " against " + low2_base + ": " +
                            num(low2_v, 3),
                        low2_v));
  // Table 3: at K >= 4096, the non-overlapped share of the faster fused kernel.
  const KSweepRow* worst = nullptr;
  double worst_v = 0;
  std::string ks;
  for (const auto& r : k_sweep) {
    if (r.k < 4096) continue;
    const bool intra = r.intra_us > 0 && (r.inter_us <= 0 || r.intra_us <= r.inter_us);
    const double ratio = intra ? r.intra_ratio : r.inter_ratio;
    if (ratio < 0) continue;
    ks += (ks.empty() ? "" : ", ") + std::string("K = ") + std::to_string(r.k) + ": " + num(100 * ratio, 1) + " % (" +
          (intra ? "intra_sm" : "inter_sm") + ")";
    if (!worst || ratio > worst_v) worst = &r, worst_v = ratio;
  }
  if (worst) out.push_back(judge("fused.hidden_k", "GEMM+RS at M = N = " + std::to_string(worst->m) + ": " + ks, 100 * worst_v));
  return out;
}

ModeResults load_mode(const std::string& name, const std::string& dir) {
  ModeResults m;
  m.name = name;
  m.dir = dir;
  if (fs::exists(dir + "/transfer.csv")) {
    m.transfer = read_transfer(dir + "/transfer.csv");
    m.summary = summarize_mechanisms(m.transfer.rows);
    m.has_transfer = true;
  }
  if (fs::exists(dir + "/sync.csv")) {
    m.sync = read_sync(dir + "/sync.csv");
    m.has_sync = true;
  }
  if (fs::exists(dir + "/timing.txt")) {
    std::ifstream f(dir + "/timing.txt");
    std::stringstream s;
    s << f.rdbuf();
    m.timing = s.str();
  }
  return m;
}

std::string peer_modes_markdown(const std::vector<ModeResults>& modes, std::vector<TargetResult>* targets) {
  if (modes.empty()) throw std::logic_error("peer_modes_markdown: no modes");
  const ModeResults& ref = modes[0];
  const TargetSpec& tspec = target_spec("peer_modes.transfer");
  const TargetSpec& sspec = target_spec("peer_modes.sync");
  const double tlim = tspec.value / 100, slim = sspec.value / 100;
  std::ostringstream os;
  os << "# Peer modes side by side\n\nGenerated by `pkbench_peer_modes` from the CSVs of one device call: the same "
        "studies with the GPUs' memory shared by peer access in one process (`single`), by CUDA IPC handles between "
        "one process per GPU (`ipc`), and by cuMem VMM allocations exported as file descriptors (`vmm`). Ratios are "
        "to `"
     << ref.name << "`. Targets: every mechanism's peak and its fewest SMs to 90 % of that peak within "
     << num(tspec.value, 0) << " %, and every cross-GPU latency within " << num(sspec.value, 0) << " %.\n\n";
  int t_checked = 0, t_missed = 0, s_checked = 0, s_missed = 0;
  std::string t_misses, s_misses;
  os << "## Transfer: peak and SMs to 90 % of peak\n\n| direction | pattern | mechanism |";
  for (const auto& m : modes) os << " " << m.name << " GB/s |";
  for (size_t i = 1; i < modes.size(); ++i) os << " " << modes[i].name << " / " << ref.name << " |";
  os << " SMs to 90 % (";
  for (size_t i = 0; i < modes.size(); ++i) os << (i ? " / " : "") << modes[i].name;
  os << ") | within " << num(tspec.value, 0) << " % |\n|---|---|---|";
  for (size_t i = 0; i < 2 * modes.size() - 1; ++i) os << "---:|";
  os << "---|---|\n";
  for (const auto& r : ref.summary) {
    std::vector<const MechanismSummary*> at;
    for (const auto& m : modes) at.push_back(find_summary(m.summary, r.mechanism, r.direction, r.pattern));
    os << "| " << r.direction << " | " << r.pattern << " | " << r.mechanism << " |";
    for (const auto* x : at) os << " " << (x ? num(x->peak_gbps, 1) : "-") << " |";
    std::vector<double> v;
    for (const auto* x : at) v.push_back(x ? x->peak_gbps : std::nan(""));
    bool ok = ratio_cells(os, v, tlim);
    os << " ";
    for (size_t i = 0; i < at.size(); ++i) {
      os << (i ? " / " : "") << (at[i] && at[i]->min_sms_90 ? std::to_string(at[i]->min_sms_90) : "-");
      if (i && at[i] && r.min_sms_90 && at[i]->min_sms_90)
        ok &= std::abs(at[i]->min_sms_90 - r.min_sms_90) <= tlim * r.min_sms_90;
    }
    ++t_checked;
    if (!ok) {
      ++t_missed;
      t_misses += (t_misses.empty() ? "" : ", ") + r.mechanism + " " + r.direction + " " + r.pattern;
    }
    os << " | " << (ok ? "yes" : "**no**") << " |\n";
  }
  os << "\n## Cross-GPU synchronisation (one-way, median)\n\n| primitive | semantics | placement |";
  for (const auto& m : modes) os << " " << m.name << " |";
  for (size_t i = 1; i < modes.size(); ++i) os << " " << modes[i].name << " / " << ref.name << " |";
  os << " within " << num(sspec.value, 0) << " % |\n|---|---|---|";
  for (size_t i = 0; i < 2 * modes.size() - 1; ++i) os << "---:|";
  os << "---|\n";
  for (const auto& r : ref.sync.rows) {
    if (r.level != "cross_gpu" || r.status != "ok") continue;
    os << "| " << r.primitive << " x" << r.participants << " | " << r.semantics << " | " << r.placement << " |";
    std::vector<const SyncRow*> at;
    for (const auto& m : modes)
      at.push_back(find_sync(m.sync.rows, r.level, r.primitive, r.scope, r.semantics, r.placement, r.participants));
    for (const auto* x : at) os << " " << (x ? num(x->one_way_ns, 0) + " ns" : "-") << " |";
    std::vector<double> v;
    for (const auto* x : at) v.push_back(x ? x->one_way_ns : std::nan(""));
    const bool ok = ratio_cells(os, v, slim);
    ++s_checked;
    if (!ok) {
      ++s_missed;
      s_misses += (s_misses.empty() ? "" : ", ") + r.primitive + " " + r.semantics;
    }
    os << " " << (ok ? "yes" : "**no**") << " |\n";
  }
  os << "\n## Run times\n\n";
  for (const auto& m : modes)
    if (!m.timing.empty()) os << "- " << m.name << ": " << m.timing << (m.timing.back() == '\n' ? "" : "\n");
  const int checked = t_checked + s_checked, missed = t_missed + s_missed;
  os << "\n" << checked - missed << " of " << checked << " comparisons within their target.\n";
  if (targets) {
    std::string names;
    for (size_t i = 1; i < modes.size(); ++i) names += (i > 1 ? "/" : "") + modes[i].name;
    if (t_checked)
      targets->push_back(TargetResult{
          "peer_modes.transfer",
          "transfer, " + names + " against " + ref.name + ": " + std::to_string(t_checked - t_missed) + " of " +
              std::to_string(t_checked) + " mechanism rows within",
          tspec.text(), t_missed ? Verdict::missed : Verdict::met, t_misses.empty() ? "" : " (outside: " + t_misses + ")"});
    if (s_checked)
      targets->push_back(TargetResult{
          "peer_modes.sync",
          "cross-GPU sync, " + names + " against " + ref.name + ": " + std::to_string(s_checked - s_missed) + " of " +
              std::to_string(s_checked) + " latencies within",
          sspec.text(), s_missed ? Verdict::missed : Verdict::met, s_misses.empty() ? "" : " (outside: " + s_misses + ")"});
  }
  return os.str();
}

}  // namespace pk::sweeps
