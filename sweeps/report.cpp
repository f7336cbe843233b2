#include "sweeps/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "microbench/collectives/collectives_analysis.h"
#include "microbench/harness/format.h"
#include "sweeps/study_schema.h"

namespace fs = std::filesystem;

namespace pk::sweeps {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// What each figure shows, by file-name prefix (scripts/plot.sh names them).
struct FigureCaption {
  const char* prefix;
  const char* caption;
};
const FigureCaption kCaptions[] = {
    {"fig2_", "Figure 2 of the paper: bandwidth (% of the NVLink line rate) against message size, per mechanism, "
              "direction and pattern"},
    {"fig3_", "Figure 3 of the paper: GB/s against the number of SMs issuing, per device mechanism and message size, "
              "with the copy engine's best and the line rate"},
    {"sync_latency", "Synchronisation latency per primitive (Section 3.1.3: ~64 ns intra-SM, ~832 ns inter-SM), "
                     "median with p10..p90"},
    {"fig4_", "Figure 4 of the paper: GEMM+RS and GEMM+AR, intra-SM against inter-SM overlap (TFLOP/s against N, "
              "inter-SM at its best communication SMs)"},
    {"fig5_", "Figure 5 of the paper: the SM split, inter-SM time against the SMs given to communication, beside "
              "cuBLAS then NCCL and intra-SM"},
    {"fig7_", "Figure 7 of the paper: AG+GEMM, TFLOP/s against N, every schedule and baseline at its best setting"},
    {"fig8_", "Figure 8 of the paper: GEMM+RS, TFLOP/s against N, every schedule and baseline at its best setting"},
    {"fig9_", "Figure 9 of the paper: GEMM+AR, TFLOP/s against N, every schedule and baseline at its best setting"},
};

std::string caption_of(const std::string& file) {
  const std::string base = fs::path(file).filename().string();
  for (const auto& c : kCaptions)
    if (base.rfind(c.prefix, 0) == 0) return c.caption;
  // The collectives study's figures: fig6_<collective>_<mode>.png, ablation_<mode>.png.
  std::smatch m;
  if (std::regex_match(base, m, std::regex("fig6_(.+)_(eager|graph)\\.png"))) {
    const std::string c = m[1].str();
    const std::string which = c == "all_reduce"            ? "Figure 6 of the paper"
                              : c == "all_gather_cols"     ? "Figure 15 of the paper"
                              : c == "reduce_scatter_cols" ? "Figure 16 of the paper"
                              : c == "all_to_all_4d"       ? "Figure 17 of the paper"
                                                           : "Figure 6's view";
    return which + ": " + c + ", " + m[2].str() + " launches, time and bus bandwidth against size, ours beside NCCL";
  }
  if (std::regex_match(base, m, std::regex("ablation_(eager|graph)\\.png")))
    return "Figure 6's design overheads (" + m[1].str() + "): all-reduce two-shot with one-way signals and direct "
           "writes against the two-way handshake, staging through a FIFO, and both, beside NCCL";
  if (std::regex_match(base, m, std::regex("ablation_cost_(eager|graph)\\.png")))
    return "Figure 6's design overheads (" + m[1].str() + "): each factor's cost, time over the one-way direct "
           "two-shot's, against size";
  return base;
}

// Rows, rows ok, commit and peer mode of any study's CSV (columns by name, all optional).
struct CsvInfo {
  size_t rows = 0, ok = 0;
  std::string commit, peer_mode;
};
CsvInfo csv_info(const std::string& path) {
  ReadOptions o = checked_as("");
  o.one_machine = false;
  const CsvTable t = CsvTable::read(
      path, {{"status", ColumnType::text, false}, {"git_commit", ColumnType::text, false}, {"peer_mode", ColumnType::text, false}},
      o);
  CsvInfo c;
  c.rows = t.rows();
  for (size_t i = 0; i < t.rows(); ++i) {
    c.ok += t.text(i, "status") == "ok";
    if (c.commit.empty()) c.commit = t.text(i, "git_commit");
    if (c.peer_mode.empty()) c.peer_mode = t.text(i, "peer_mode");
  }
  return c;
}

std::string rel(const ResultsFolder& f, const std::string& path) { return fs::relative(path, f.dir).string(); }

// "1.469" in bold when `bold`.
std::string ratio_cell(double v, bool bold) {
  if (v <= 0) return "-";
  return bold ? "**" + num(v, 3) + "**" : num(v, 3);
}

const SyncRow* sync_find(const ResultsFolder& f, const char* level, const char* prim, const char* scope,
                         const char* sem, const char* placement = "") {
  if (!f.sync) return nullptr;
  return find_sync(f.sync->rows, level, prim, scope, sem, placement);
}

std::string dash_if_empty(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

std::string ResultsFolder::machine_key() const {
  if (transfer) return transfer->machine.key();
  if (sync) return sync->machine.key();
  if (gemm) return gemm->machine.key();
  return fs::path(dir).filename().string();
}

std::string ResultsFolder::describe() const {
  if (transfer) return transfer->machine.describe();
  if (sync) return sync->machine.describe();
  if (gemm) return gemm->machine.describe();
  return dir;
}

// The studies in the order the report lists their figures (scripts/lib.sh's PK_STUDIES).
const char* const kStudyFolders[] = {"transfer", "sync", "primitives", "collectives", "fused", "gemm"};

ResultsFolder load_results(const std::string& dir) {
  if (!fs::is_directory(dir)) throw std::invalid_argument("no such folder: " + dir);
  ResultsFolder f;
  f.dir = dir;
  // <study>/<study>.csv, or "" when the study was not measured here.
  auto study_csv = [&](const std::string& study) {
    const std::string p = dir + "/" + study + "/" + study + ".csv";
    return fs::exists(p) ? p : std::string();
  };
  if (const std::string p = study_csv("transfer"); !p.empty()) {
    f.transfer = read_transfer(p, &registered_studies());
    f.transfer_summary = summarize_mechanisms(f.transfer->rows);
  }
  if (const std::string p = study_csv("sync"); !p.empty()) f.sync = read_sync(p, &registered_studies());
  if (const std::string p = study_csv("gemm"); !p.empty()) f.gemm = read_gemm(p);
  f.collectives_csv = study_csv("collectives");
  f.primitives_csv = study_csv("primitives");
  f.fused_dir = dir + "/fused";
  if (const std::string p = study_csv("fused"); !p.empty()) {
    f.fused = fused_summary(p);
    if (fs::exists(f.fused_dir + "/fused_table3.csv")) f.fused_k_sweep = fused_k_sweep(f.fused_dir + "/fused_table3.csv");
  }
  const std::string modes = dir + "/transfer/peer-modes/";
  for (const char* m : {"single", "ipc", "vmm"})
    if (fs::is_directory(modes + m)) f.peer_modes.push_back(load_mode(m, modes + m));
  // A study folder's own files (figures, virtual-rank CSVs), sorted: directory order is the
  // file system's, and the report must not depend on it.
  auto files_in = [&](const std::string& sub, const char* ext) {
    std::vector<std::string> out;
    if (fs::is_directory(dir + "/" + sub))
      for (const auto& e : fs::directory_iterator(dir + "/" + sub))
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(sub + "/" + e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const char* study : kStudyFolders) {
    for (auto& v : files_in(study, ".png")) f.figures.push_back(std::move(v));
    for (auto& v : files_in(std::string(study) + "/virtual", ".csv")) f.virtual_csvs.push_back(std::move(v));
  }
  f.point_costs = point_costs_in(dir);
  if (fs::exists(dir + "/environment.txt")) f.environment = slurp(dir + "/environment.txt");
  // The transfer study's wall time with the build: run.sh writes one row per invocation, named
  // after its CSV; the study's main run (step "transfer", or its parts "transfer.<part>") ended
  // with the last of them. Further runs (run.sh --as=NAME) are named otherwise.
  if (fs::exists(dir + "/transfer/timing.csv")) {
    ReadOptions o = checked_as("");
    o.one_machine = false;
    const CsvTable t =
        CsvTable::read(dir + "/transfer/timing.csv", {{"step"}, {"seconds_with_build", ColumnType::number}}, o);
    for (size_t i = 0; i < t.rows(); ++i) {
      const std::string step(t.text(i, "step"));
      if (step != "transfer" && step.rfind("transfer.", 0) != 0) continue;
      f.transfer_elapsed_s = t.number(i, "seconds_with_build");
      f.elapsed_source = "transfer/timing.csv:" + std::to_string(t.line_of(i));
    }
  }
  return f;
}

std::vector<PointCostSummary> point_costs_in(const std::string& dir) {
  std::vector<std::string> csvs;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".csv") csvs.push_back(e.path().string());
  std::sort(csvs.begin(), csvs.end());  // directory order is the file system's
  std::vector<PointCostSummary> out;
  for (const auto& c : csvs)
    if (auto s = summarize_point_cost(c)) {
      s->csv = fs::relative(c, dir).string();
      out.push_back(std::move(*s));
    }
  return out;
}

namespace {

// One claim: its paper text and a function measuring it in a folder ("" = not measured).
using Measure = std::function<std::string(const ResultsFolder&)>;
struct Claim {
  std::string claim, paper;
  Measure measure;
  std::string note;
};

// A mechanism's push peak as % of the line rate, and its fewest SMs to 90 % of that peak.
Measure push_peak_pct(const char* mech) {
  return [mech](const ResultsFolder& f) -> std::string {
    const auto* s = find_summary(f.transfer_summary, mech, "push");
    return s && s->line_rate_gbps > 0 ? num(s->pct_line()) + " % (" + num(s->peak_gbps) + " GB/s)" : "";
  };
}
Measure push_sms_90(const char* mech) {
  return [mech](const ResultsFolder& f) -> std::string {
    const auto* s = find_summary(f.transfer_summary, mech, "push");
    return s && s->min_sms_90 ? std::to_string(s->min_sms_90) + " (90 % of its peak)" : "";
  };
}

std::vector<Claim> transfer_claims() {
  return {
    {"copy engine: message size for > 80 % of the line rate", ">= 256 MB",
     [](const ResultsFolder& f) -> std::string {
       std::string out;
       for (const char* dir : {"push", "pull"})
         if (const auto* s = find_summary(f.transfer_summary, "ce", dir))
           out += (out.empty() ? "" : ", ") + (s->min_message_80_line ? size_text(s->min_message_80_line) : "never") +
                  " (" + dir + ")";
       return out;
     },
     "per cudaMemcpyPeerAsync call; the paper's 1 GB total"},
    {"copy engine: best % of the line rate", "81 %", push_peak_pct("ce"), "line rate from NVML (links x per-link rate)"},
    {"TMA: % of the line rate with 2 KB messages", "74 %",
     [](const ResultsFolder& f) -> std::string {
       if (!f.transfer) return "";
       const auto* s = find_summary(f.transfer_summary, "tma_bulk", "push");
       const double g = best_at(f.transfer->rows, "tma_bulk", "push", 2048);
       return s && g > 0 && s->line_rate_gbps > 0 ? num(100 * g / s->line_rate_gbps) + " % (" + num(g) + " GB/s)" : "";
     },
     "tma_bulk push, all SMs"},
    {"TMA: SMs to saturate NVLink", "~15", push_sms_90("tma_bulk"),
     "fewest SMs reaching 90 % of the mechanism's own peak"},
    {"register ld/st: % of the line rate", "~70 % (B200)", push_peak_pct("reg"), "reg push peak"},
    {"register ld/st: SMs to saturate NVLink", "~76", push_sms_90("reg"), ""},
    {"register SMs / TMA SMs", "3.2-5.1x",
     [](const ResultsFolder& f) -> std::string {
       std::string out;
       for (const char* dir : {"push", "pull"}) {
         const auto* r = find_summary(f.transfer_summary, "reg", dir);
         const auto* t = find_summary(f.transfer_summary, "tma_bulk", dir);
         if (r && t && r->min_sms_90 && t->min_sms_90)
           out += (out.empty() ? "" : ", ") + num(double(r->min_sms_90) / t->min_sms_90, 1) + "x (" + dir + ")";
       }
       return out;
     },
     ""},
  };
}

std::vector<Claim> sync_claims() {
  return {
    {"intra-SM synchronisation (mbarrier)", "~64 ns",
     [](const ResultsFolder& f) -> std::string {
       const auto* r = sync_find(f, "intra_sm", "mbarrier_pingpong", "", "");
       return r ? ns_text(r->one_way_ns) + " one-way" : "";
     },
     "half a ping-pong between two warps"},
    {"inter-SM synchronisation through L2/HBM", "~832 ns",
     [](const ResultsFolder& f) -> std::string {
       const auto* r = sync_find(f, "inter_sm", "flag_pingpong", "gpu", "release_acquire");
       return r ? ns_text(r->one_way_ns) + " one-way" : "";
     },
     "release/acquire flag between two SMs, gpu scope"},
    {"inter-SM / intra-SM", "~13x",
     [](const ResultsFolder& f) -> std::string {
       const auto* a = sync_find(f, "intra_sm", "mbarrier_pingpong", "", "");
       const auto* b = sync_find(f, "inter_sm", "flag_pingpong", "gpu", "release_acquire");
       return a && b ? ratio_text(b->one_way_ns / a->one_way_ns, 1) : "";
     },
     ""},
  };
}

std::string all_reduce_over_nccl(const ResultsFolder& f) {
  if (f.collectives_csv.empty()) return "";
  const CollMethod head = headline_method(read_collectives_info(f.collectives_csv));
  std::string out;
  for (const CollMethod m : {head, CollMethod::device_time}) {
    if (!out.empty() && m == head) break;
    const CollectiveSpeedup s = best_speedup_over_nccl(f.collectives_csv, "all_reduce", "bf16", m);
    if (s.speedup <= 0) continue;
    out += (out.empty() ? "up to " : "; device-time view: up to ") + ratio_text(s.speedup) + " (" + s.impl +
           " vs " + s.nccl_impl + ", " + size_text(static_cast<uint64_t>(s.bytes)) + ", " + s.launch_mode +
           (m == CollMethod::nccltests ? ", nccl-tests method" : "") + "; NCCL " + s.check.text() + ")";
  }
  return out.empty() ? out : out + " (`" + fs::relative(f.collectives_csv, f.dir).string() + "`)";
}

std::vector<Claim> library_claims() {
  return {
    {"NVSHMEM-style element-wise access slower than PK-style", "up to 4.5x",
     [](const ResultsFolder& f) -> std::string {
       return fs::exists(f.dir + "/primitives/primitives_summary.md") ? "see `primitives/primitives_summary.md`" : "";
     },
     "pkbench_primitives, against the real NVSHMEM and NCCL device APIs"},
    {"PK all-reduce over NCCL's best (BF16)", "up to 1.79x (8 GPUs)",
     all_reduce_over_nccl,
     "collectives study (Figure 6): best of ours / best of NCCL at one size, both timed alike; NCCL rows off "
     "their tool excluded"},
  };
}

std::string k_sweep_hidden(const ResultsFolder& f) {
  if (f.fused_k_sweep.empty()) return "";
  std::string out;
  int64_t hidden_from = 0;
  for (const auto& r : f.fused_k_sweep) {
    const bool intra = r.intra_us > 0 && (r.inter_us <= 0 || r.intra_us <= r.inter_us);
    const double ratio = intra ? r.intra_ratio : r.inter_ratio;
    if (ratio < 0) continue;
    out += (out.empty() ? "" : ", ") + num(100 * ratio, 1) + " % at K = " + std::to_string(r.k);
    if (ratio > 0.05) hidden_from = 0;
    else if (!hidden_from) hidden_from = r.k;
  }
  if (out.empty()) return "";
  return "non-overlapped share of the faster fused kernel: " + out + "; <= 5 % from " +
         (hidden_from ? "K = " + std::to_string(hidden_from) : std::string("no K measured"));
}

std::vector<Claim> fused_claims() {
  return {
    {"fused GEMM + communication over cuBLAS then NCCL", "up to 2.33x (abstract: data- and tensor-parallel workloads)",
     [](const ResultsFolder& f) -> std::string {
       if (!f.fused) return "";
       const FusedShape* best = nullptr;
       for (const auto& s : f.fused->shapes)
         if (s.speedup(s.best_fused_us()) > 0 && (!best || s.speedup(s.best_fused_us()) > best->speedup(best->best_fused_us())))
           best = &s;
       if (!best) return "";
       return "up to " + ratio_text(best->speedup(best->best_fused_us())) + " (" + fused_op_text(best->op) + " " +
              best->best_fused() + (best->size_n ? ", N = " + std::to_string(best->size_n) : "") + ", " +
              std::to_string(best->gpus) + " GPUs; every operator in the fused section)";
     },
     "fused study (Figures 7-9): the best fused kernel's median against cuBLAS then NCCL's, same run"},
    {"GEMM+RS: intra-SM over inter-SM", "1.2x",
     [](const ResultsFolder& f) -> std::string {
       if (!f.fused) return "";
       std::string out;
       for (const auto& s : f.fused->shapes)
         if (s.op == "gemm_rs" && s.intra_us > 0 && s.inter_us > 0)
           out += (out.empty() ? "" : ", ") + ratio_text(s.inter_us / s.intra_us) +
                  (s.size_n ? " (N = " + std::to_string(s.size_n) + ")" : "");
       return out;
     },
     "fused study (Figure 4): best inter-SM median / best intra-SM median"},
    {"GEMM+RS: communication hidden from K", ">= 2197 (H100)",
     k_sweep_hidden,
     "fused study (Table 3, GEMM+RS K sweep): (fused - GEMM alone) / fused"},
    {"GEMM+AR through NVSwitch multicast over cuBLAS then NCCL", "3.62x",
     [](const ResultsFolder& f) -> std::string {
       return f.fused ? "not run: multicast is never run on shared machines (the AR kernels use NVLink stores)" : "";
     },
     "fused study"},
  };
}

}  // namespace

std::vector<ClaimRow> paper_claims(const ResultsFolder& here, const ResultsFolder* other) {
  static const std::vector<Claim> claims = [] {
    std::vector<Claim> v;
    for (auto part : {transfer_claims, sync_claims, library_claims, fused_claims})
      for (auto& c : part()) v.push_back(std::move(c));
    return v;
  }();
  std::vector<ClaimRow> out;
  for (const auto& c : claims) out.push_back({c.claim, c.paper, c.measure(here), other ? c.measure(*other) : "", c.note});
  return out;
}

std::vector<TargetResult> all_targets(const ResultsFolder& f) {
  std::vector<TargetResult> out;
  if (f.transfer) {
    auto t = transfer_targets(*f.transfer, f.transfer_summary, f.transfer_elapsed_s);
    out.insert(out.end(), t.begin(), t.end());
  }
  if (f.sync) {
    auto t = sync_targets(*f.sync);
    out.insert(out.end(), t.begin(), t.end());
  }
  if (f.peer_modes.size() > 1) peer_modes_markdown(f.peer_modes, &out);
  if (f.gemm) {
    auto t = gemm_targets(*f.gemm);
    out.insert(out.end(), t.begin(), t.end());
  }
  if (f.fused) {
    auto t = fused_targets(*f.fused, f.fused_k_sweep);
    out.insert(out.end(), t.begin(), t.end());
  }
  if (!f.collectives_csv.empty()) {
    const CollMethod m = headline_method(read_collectives_info(f.collectives_csv));
    auto t = collectives_targets(collective_points(f.collectives_csv, m), m);
    out.insert(out.end(), t.begin(), t.end());
  }
  if (!f.primitives_csv.empty()) {
    auto t = primitives_targets(f.primitives_csv);
    out.insert(out.end(), t.begin(), t.end());
  }
  return out;
}

namespace {

// The studies table and what this folder lacks.
void section_studies(std::ostream& os, const ResultsFolder& here) {
  os << "Machine: " << here.describe() << ".\n\n| study | CSV | rows | commit measured | peer mode |\n|---|---|---:|---|---|\n";
  if (here.transfer)
    os << "| transfer | `transfer/transfer.csv` | " << here.transfer->total << " (" << here.transfer->rows.size() << " ok, "
       << here.transfer->skipped << " skipped, " << here.transfer->errors << " errors) | "
       << dash_if_empty(here.transfer->git_commit) << " | " << dash_if_empty(here.transfer->peer_mode) << " |\n";
  if (here.sync)
    os << "| sync | `sync/sync.csv` | " << here.sync->rows.size() << " | " << dash_if_empty(here.sync->git_commit) << " | "
       << dash_if_empty(here.sync->peer_mode) << " |\n";
  if (here.gemm)
    os << "| gemm | `" << fs::relative(here.gemm->path, here.dir).string() << "` | " << here.gemm->total << " | "
       << dash_if_empty(here.gemm->git_commit) << " | - |\n";
  if (!here.collectives_csv.empty()) {
    const CsvInfo c = csv_info(here.collectives_csv);
    os << "| collectives | `" << rel(here, here.collectives_csv) << "` | " << c.rows << " (" << c.ok << " ok) | "
       << dash_if_empty(c.commit) << " | " << dash_if_empty(c.peer_mode) << " |\n";
  }
  if (here.fused) {
    os << "| fused | `" << rel(here, here.fused->path) << "` | " << here.fused->rows << " (" << here.fused->ok << " ok) | "
       << dash_if_empty(here.fused->git_commit) << " | " << dash_if_empty(here.fused->peer_mode) << " |\n";
    for (const char* extra : {"fused_fig5.csv", "fused_table3.csv"})
      if (fs::exists(here.fused_dir + "/" + extra)) {
        const CsvInfo c = csv_info(here.fused_dir + "/" + extra);
        os << "| fused | `" << rel(here, here.fused_dir + "/" + extra) << "` | " << c.rows << " (" << c.ok << " ok) | "
           << dash_if_empty(c.commit) << " | " << dash_if_empty(c.peer_mode) << " |\n";
      }
  }
  if (!here.primitives_csv.empty()) {
    const CsvInfo c = csv_info(here.primitives_csv);
    os << "| primitives | `" << rel(here, here.primitives_csv) << "` | " << c.rows << " (" << c.ok << " ok) | "
       << dash_if_empty(c.commit) << " | " << dash_if_empty(c.peer_mode) << " |\n";
  }
  for (const auto& m : here.peer_modes) {
    if (m.has_transfer)
      os << "| transfer (" << m.name << ") | `" << fs::relative(m.transfer.path, here.dir).string() << "` | "
         << m.transfer.total << " | " << dash_if_empty(m.transfer.git_commit) << " | " << m.transfer.peer_mode << " |\n";
    if (m.has_sync)
      os << "| sync (" << m.name << ") | `" << fs::relative(m.sync.path, here.dir).string() << "` | "
         << m.sync.rows.size() << " | " << dash_if_empty(m.sync.git_commit) << " | " << m.sync.peer_mode << " |\n";
  }
  // Virtual ranks (N ranks on one GPU): listed, labelled, never in a target or a tuning table.
  for (const auto& v : here.virtual_csvs) {
    const CsvInfo c = csv_info(here.dir + "/" + v);
    os << "| " << fs::path(v).stem().string() << " (virtual ranks) | `" << v << "` | " << c.rows << " (" << c.ok
       << " ok) | " << dash_if_empty(c.commit) << " | " << dash_if_empty(c.peer_mode) << " |\n";
  }
  if (!here.virtual_csvs.empty())
    os << "\nRows marked virtual ranks ran N ranks on this one GPU (green contexts): their bandwidths are HBM's, not "
          "NVLink's; they show correctness and per-SM rates, and no target or tuning table reads them.\n";
  std::vector<std::string> absent;
  if (!here.transfer) absent.push_back("transfer (" + std::string(here.sync && here.sync->machine.gpu_count < 2
                                                                     ? "one GPU: no peer to transfer to"
                                                                     : "no transfer/transfer.csv") + ")");
  if (here.collectives_csv.empty())
    absent.push_back("collectives (Figures 6, 15-17: not measured here)");
  if (!here.fused) absent.push_back("fused kernels (Figures 4, 5, 7-9, Table 3: not measured here)");
  if (here.primitives_csv.empty()) absent.push_back("library primitives (not measured here)");
  if (!absent.empty()) {
    os << "\nNot in this folder: ";
    for (size_t i = 0; i < absent.size(); ++i) os << (i ? "; " : "") << absent[i];
    os << ".\n";
  }

}

// environment.txt: date, commit, GPUs, topology and NVLinks.
void section_environment(std::ostream& os, const ResultsFolder& here) {
  os << "\n## Environment\n\n";
  if (here.environment.empty()) {
    os << "No `environment.txt` in this folder.\n";
  } else {
    std::istringstream in(here.environment);
    std::string line;
    std::vector<std::string> gpu_csv, topo;
    std::map<std::string, int> links;
    std::map<std::string, std::string> link_rate;
    std::string current_gpu;
    bool in_topo = false;
    while (std::getline(in, line)) {
      line = std::regex_replace(line, std::regex("\x1b\\[[0-9;]*m"), "");
      if (line.rfind("date_utc:", 0) == 0 || line.rfind("commit:", 0) == 0 || line.rfind("host:", 0) == 0 ||
          line.rfind("NCCL_NVLS_ENABLE", 0) == 0)
        os << "- " << line << "\n";
      else if (line.rfind("index, name", 0) == 0 || (!gpu_csv.empty() && std::regex_match(line, std::regex("[0-9]+, .*"))))
        gpu_csv.push_back(line);
      else if (line.find("CPU Affinity") != std::string::npos)
        in_topo = true, topo.push_back(line);
      else if (in_topo && !line.empty() && line.rfind("GPU", 0) == 0)
        topo.push_back(line);
      else if (in_topo && line.empty())
        in_topo = false;
      std::smatch m;
      if (std::regex_match(line, m, std::regex("(GPU [0-9]+): .*"))) current_gpu = m[1];
      if (std::regex_match(line, m, std::regex("\\s*Link [0-9]+: ([0-9.]+ GB/s).*")) && !current_gpu.empty()) {
        links[current_gpu]++;
        link_rate[current_gpu] = m[1];
      }
    }
    if (!gpu_csv.empty()) {
      std::vector<std::string> cells;
      auto split = [](const std::string& s) {
        std::vector<std::string> v;
        std::stringstream ss(s);
        std::string c;
        while (std::getline(ss, c, ',')) v.push_back(std::regex_replace(c, std::regex("^\\s+|\\s+$"), ""));
        return v;
      };
      const auto h = split(gpu_csv[0]);
      os << "\n|";
      for (const auto& c : h) os << " " << c << " |";
      os << "\n|";
      for (size_t i = 0; i < h.size(); ++i) os << "---|";
      os << "\n";
      for (size_t r = 1; r < gpu_csv.size(); ++r) {
        os << "|";
        for (const auto& c : split(gpu_csv[r])) os << " " << c << " |";
        os << "\n";
      }
    }
    if (!topo.empty()) {
      os << "\nTopology (`nvidia-smi topo -m`):\n\n```\n";
      for (const auto& t : topo) os << t << "\n";
      os << "```\n";
    }
    for (const auto& [g, n] : links) os << "\n- " << g << ": " << n << " NVLinks at " << link_rate[g] << " each";
    if (!links.empty()) os << "\n";
  }
  if (here.transfer && !here.transfer->rows.empty()) {
    const auto& r = here.transfer->rows.front();
    os << "\nLine rate used for \"% of line rate\": " << num(r.line_rate_gbps) << " GB/s per direction.\n";
  }

}

void section_figures(std::ostream& os, const ResultsFolder& here) {
  os << "\n## Figures\n\n";
  if (here.figures.empty()) os << "No figures in this folder (scripts/plot.sh draws them from the CSVs).\n";
  for (const auto& fig : here.figures) {
    const std::string svg = fs::path(fig).replace_extension(".svg").string();
    os << "### " << caption_of(fig) << "\n\n![" << fig << "](" << fig << ")\n\n";
    if (fs::exists(here.dir + "/" + svg)) os << "(vector: [`" << svg << "`](" << svg << "))\n\n";
  }

}

// The paper's claims beside this folder's (and the other machine's) numbers.
void section_claims(std::ostream& os, const ResultsFolder& here, const ResultsFolder* other) {
  const std::string key = here.machine_key(), okey = other ? other->machine_key() : "";
  os << "## The paper's claims beside our numbers" << (other ? " and " + okey + "'s" : "") << "\n\n";
  os << "| claim | paper | " << key << " |" << (other ? " " + okey + " |" : "") << " how measured |\n|---|---|---|"
     << (other ? "---|" : "") << "---|\n";
  for (const auto& c : paper_claims(here, other))
    os << "| " << c.claim << " | " << c.paper << " | " << (c.ours.empty() ? "not measured" : c.ours) << " |"
       << (other ? " " + (c.other.empty() ? std::string("not measured") : c.other) + " |" : "") << " " << c.note << " |\n";

}

// The studies both folders measured, side by side.
void section_other_machine(std::ostream& os, const ResultsFolder& here, const ResultsFolder* other) {
  const std::string key = here.machine_key(), okey = other->machine_key();
  if (other) {
    os << "\n## " << key << " beside " << okey << "\n\n";
    os << "Machines: " << here.describe() << " and " << other->describe() << ".\n\n";
    if (here.sync && other->sync) {
      os << "Synchronisation, one-way (or per operation) medians of every primitive both measured:\n\n| level | "
            "primitive | scope | semantics | placement | x | "
         << key << " | " << okey << " | " << okey << " / " << key << " |\n|---|---|---|---|---|---:|---:|---:|---:|\n";
      for (const auto& r : here.sync->rows) {
        if (r.status != "ok") continue;
        const SyncRow* o = find_sync(other->sync->rows, r.level, r.primitive, r.scope, r.semantics, r.placement,
                                     r.participants);
        if (!o || o->scope != r.scope || o->semantics != r.semantics || o->placement != r.placement) continue;
        os << "| " << r.level << " | " << r.primitive << " | " << r.scope << " | " << r.semantics << " | "
           << r.placement << " | " << r.participants << " | " << ns_text(r.one_way_ns) << " | " << ns_text(o->one_way_ns)
           << " | " << num(r.one_way_ns > 0 ? o->one_way_ns / r.one_way_ns : 0, 2) << " |\n";
      }
    }
    if (here.gemm && other->gemm) {
      os << "\nGEMM, TFLOP/s of every shape and SM count both measured (this suite's default variant c1 and "
            "cuBLASLt, same run on each machine):\n\n| shape | SMs | "
         << key << " cuBLASLt | " << key << " c1 | " << okey << " cuBLASLt | " << okey << " c1 | " << okey << " / "
         << key << " (c1) |\n|---|---:|---:|---:|---:|---:|---:|\n";
      for (const auto& r : here.gemm->rows) {
        if (r.impl != "cublaslt") continue;
        const GemmRow* a = find_gemm(*here.gemm, "pkbench", "c1", r.m, r.n, r.k, r.sms);
        const GemmRow* ob = find_gemm(*other->gemm, "cublaslt", "", r.m, r.n, r.k, r.sms);
        const GemmRow* oa = find_gemm(*other->gemm, "pkbench", "c1", r.m, r.n, r.k, r.sms);
        if (!a || !ob || !oa) continue;
        os << "| " << r.shape() << " | " << r.sms << " | " << num(r.tflops) << " | " << num(a->tflops) << " | "
           << num(ob->tflops) << " | " << num(oa->tflops) << " | " << num(oa->tflops / a->tflops, 3) << " |\n";
      }
    }
    auto only = [&](const char* what, bool a, bool b) {
      if (a && !b) os << "\n- " << what << ": only " << key << " has it.";
      if (!a && b) os << "\n- " << what << ": only " << okey << " has it.";
    };
    only("transfer study", here.transfer.has_value(), other->transfer.has_value());
    only("GEMM study", here.gemm.has_value(), other->gemm.has_value());
    only("collectives study", !here.collectives_csv.empty(), !other->collectives_csv.empty());
    only("fused study", here.fused.has_value(), other->fused.has_value());
    os << "\n";
  }

}

void section_collectives(std::ostream& os, const ResultsFolder& here) {
  if (here.collectives_csv.empty()) return;
  const CollectivesData d = read_collectives_info(here.collectives_csv);
  const CollMethod method = headline_method(d);
  os << "\n## Collectives (Figures 6, 15-17)\n\nFrom `" << rel(here, here.collectives_csv)
     << "`: this suite's best implementation against NCCL's best configuration, same launch mode, at every size both "
        "measured; speedup = NCCL's / ours, both under the "
     << coll_method_text(method) << (method == CollMethod::nccltests ? " (the headline)" : "")
     << "; \"faster\" counts sizes beyond the noise. The device-time view (gated events) is given beside it. The "
        "paper: up to 1.79x over NCCL for the BF16 all-reduce on 8 GPUs (Figure 6).";
  if (fs::exists(here.dir + "/collectives/summary.md"))
    os << " Every size: [`collectives/summary.md`](collectives/summary.md).";
  os << "\n\n| view | collective | dtype | GPUs | mode | sizes | ours faster at | within noise | NCCL checked / off "
        "its tool | best speedup (size, impl) | lowest (size, impl) |\n|---|---|---|---:|---|---:|---:|---:|---:|---|---|\n";
  auto rows = [&](CollMethod m, const char* view) {
    for (const auto& c : collective_comparisons(collective_points(here.collectives_csv, m)))
      os << "| " << view << " | " << c.collective << " | " << c.dtype << " | " << c.gpus << " | " << c.launch_mode
         << " | " << c.sizes << " | " << c.faster << " | " << c.ties << " | " << c.checked << " / " << c.defective << " | "
         << ratio_text(c.best) << " (" << size_text(static_cast<uint64_t>(c.best_bytes)) << ", " << c.best_impl
         << ") | " << ratio_text(c.worst) << " (" << size_text(static_cast<uint64_t>(c.worst_bytes)) << ", "
         << c.worst_impl << ") |\n";
  };
  rows(method, method == CollMethod::nccltests ? "nccl-tests method" : "device time");
  if (method == CollMethod::nccltests) rows(CollMethod::device_time, "device time");
}

void section_fused(std::ostream& os, const ResultsFolder& here) {
  if (here.fused) {
    const FusedSummary& fu = *here.fused;
    os << "\n## Fused GEMM + communication (Figures 4, 5, 7-9, Table 3)\n\nFrom `" << rel(here, fu.path) << "` ("
       << fu.ok << " ok rows, commit " << dash_if_empty(fu.git_commit) << ", peer mode " << dash_if_empty(fu.peer_mode)
       << "). Each schedule at its best communication-SM count; speedup = cuBLAS then NCCL's median / the "
          "schedule's median, same run (the paper's baseline). The paper reports up to 2.33x for data- and "
          "tensor-parallel workloads (its abstract) and intra-SM 1.2x faster than inter-SM for GEMM+RS. The targets "
          "(below): >= 1.25x over cuBLAS then NCCL wherever communication is >= 30 % of it, and at every shape the "
          "best fused kernel against the best baseline of any kind (the suite's copy-engine overlap included). "
          "\"choice\" is the fused tuning table's (`pkbench_tune`: the simplest configuration within the fastest's "
          "noise).\n\n"
       << "| operator | N | local M x N x K | comm share of cuBLAS+NCCL (its time - GEMM alone) | best fused / cuBLAS+NCCL | intra-SM | "
          "inter-SM (comm SMs) | choice | best other baseline (its speedup over cuBLAS+NCCL) | best baseline / best "
          "fused |\n|---|---:|---|---:|---:|---:|---:|---|---|---:|\n";
    const TuningTable tt = fused_tuning(fu.path);
    auto choice = [&](const FusedShape& s) -> std::string {
      for (size_t i = 0; i < tt.rows.size(); ++i)
        if (cell_text(tt.at(i, "op")) == s.op && std::get<int64_t>(tt.at(i, "m")) == s.m &&
            std::get<int64_t>(tt.at(i, "n")) == s.n && std::get<int64_t>(tt.at(i, "k")) == s.k &&
            std::get<int64_t>(tt.at(i, "gpus")) == s.gpus) {
          const std::string o = cell_text(tt.at(i, "overlap"));
          return o == "inter_sm" ? o + ", " + cell_text(tt.at(i, "comm_sms")) + " SMs" : o;
        }
      return "-";
    };
    for (const std::string op : {"gemm_rs", "ag_gemm", "gemm_ar"})
      for (const auto& s : fu.shapes) {
        if (s.op != op) continue;
        const double best = s.speedup(s.best_fused_us());
        const bool intra_best = s.best_fused_us() == s.intra_us;
        os << "| " << fused_op_text(s.op) << " | " << (s.size_n ? std::to_string(s.size_n) : "-") << " | " << s.m << "x"
           << s.n << "x" << s.k << " | " << (s.comm_share >= 0 ? num(100 * s.comm_share, 0) + " %" : "-") << " | "
           << ratio_cell(best, true) << " (" << s.best_fused() << ") | " << ratio_cell(s.speedup(s.intra_us), intra_best)
           << " | " << ratio_cell(s.speedup(s.inter_us), !intra_best)
           << (s.inter_us > 0 ? " (" + std::to_string(s.inter_comm_sms) + ")" : "") << " | " << choice(s) << " | "
           << (s.baseline_us > 0 ? s.baseline_impl + " " + num(s.speedup(s.baseline_us), 3) : "-") << " | "
           << ratio_cell(speedup(s.best_baseline_us(), s.best_fused_us()), false)
           << " |\n";
      }
    // PyTorch's async TP, where pkbench_torch_ref merged its figures into the fused CSV: the
    // best baseline above (and the fused.vs_best_baseline target) then includes it.
    std::ostringstream torch;
    for (const std::string op : {"gemm_rs", "ag_gemm", "gemm_ar"})
      for (const auto& s : fu.shapes)
        if (s.op == op && s.torch_us > 0)
          torch << "| " << fused_op_text(s.op) << " | " << (s.size_n ? std::to_string(s.size_n) : "-") << " | " << s.m
                << "x" << s.n << "x" << s.k << " | " << s.gpus << " | " << num(s.torch_us, 1) << " | "
                << (s.best_fused_us() > 0 ? num(s.best_fused_us(), 1) + " (" + s.best_fused() + ")" : "-") << " | "
                << ratio_cell(speedup(s.torch_us, s.best_fused_us()), false) << " | " << s.best_baseline() << " "
                << num(s.best_baseline_us(), 1) << " | " << ratio_cell(speedup(s.best_baseline_us(), s.best_fused_us()), false)
                << " |\n";
    if (!torch.str().empty())
      os << "\nAgainst PyTorch's async tensor parallelism (`torch.ops.symm_mem.fused_*`, its figures merged by "
            "`pkbench_torch_ref` from `microbench/fused/ref_torch.py`, CUDA-event medians, same shapes and GPUs), and "
            "the best baseline of any kind (cuBLAS then NCCL, the overlapped cuBLAS+NCCL, the copy-engine overlap, "
            "PyTorch), medians in us:\n\n| operator | N | local M x N x K | GPUs | PyTorch async TP | best fused | "
            "PyTorch / best fused | best baseline | best baseline / best fused |\n|---|---:|---|---:|---:|---:|---:|---|---:|\n"
         << torch.str();
    if (!here.fused_k_sweep.empty()) {
      os << "\nTable 3 (`" << rel(here, here.fused_dir + "/fused_table3.csv")
         << "`): GEMM+RS against K, medians in ms; non-overlapped = (fused - GEMM alone) / fused. The paper: "
            "communication hides from K >= sR/2B (2197 on H100).\n\n"
         << "| M x N | K | GEMM alone (ours) | cuBLAS then NCCL | fused intra-SM | non-overlapped | fused inter-SM "
            "(comm SMs) | non-overlapped |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
      auto ms = [](double us) { return us > 0 ? num(us / 1000, 3) : std::string("-"); };
      auto pct = [](double r) { return r >= 0 ? num(100 * r, 1) + " %" : std::string("-"); };
      for (const auto& r : here.fused_k_sweep)
        os << "| " << r.m << " x " << r.n << " | " << r.k << " | " << ms(r.gemm_us) << " | " << ms(r.cublas_nccl_us)
           << " | " << ms(r.intra_us) << " | " << pct(r.intra_ratio) << " | " << ms(r.inter_us)
           << (r.inter_us > 0 ? " (" + std::to_string(r.inter_comm_sms) + ")" : "") << " | " << pct(r.inter_ratio)
           << " |\n";
    }
    std::vector<std::string> more;
    for (const char* name : {"fused/fused_model.txt", "fused/fused_table3_model.txt", "fused/fused_fig5_model.txt",
                             "tuning/fused_tuning.csv", "fused/table3.md", "fused/README.md"})
      if (fs::exists(here.dir + "/" + name)) more.push_back(std::string("[`") + name + "`](" + name + ")");
    if (!more.empty()) {
      os << "\nAlso: ";
      for (size_t i = 0; i < more.size(); ++i) os << (i ? ", " : "") << more[i];
      os << " (the cost model's predictions beside the measurements, the tuning table, the study's notes).\n";
    }
  }

}

void section_gemm(std::ostream& os, const ResultsFolder& here) {
  if (here.gemm) {
    os << "\n## GEMM (this suite's kernel against cuBLASLt, same run)\n\n| shape | SMs | cuBLASLt TFLOP/s |";
    std::set<std::string> variants;
    for (const auto& r : here.gemm->rows)
      if (r.impl != "cublaslt") variants.insert(r.variant);
    for (const auto& v : variants) os << " " << v << " TFLOP/s (ratio) |";
    os << "\n|---|---:|---:|";
    for (size_t i = 0; i < variants.size(); ++i) os << "---:|";
    os << "\n";
    for (const auto& r : here.gemm->rows) {
      if (r.impl != "cublaslt") continue;
      os << "| " << r.shape() << " | " << r.sms << " | " << num(r.tflops) << " |";
      for (const auto& v : variants) {
        const GemmRow* p = find_gemm(*here.gemm, "pkbench", v, r.m, r.n, r.k, r.sms);
        os << " " << (p ? num(p->tflops) + " (" + num(p->tflops / r.tflops, 3) + ")" : "-") << " |";
      }
      os << "\n";
    }
  }

}

// The transfer tuning table, any and device choices paired per bucket.
void section_transfer_tuning(std::ostream& os, const ResultsFolder& here) {
  if (here.transfer) {
    const TuningTable t = transfer_tuning(*here.transfer);
    os << "\n## Transfer tuning table\n\nThe table `pkbench_tune --out " << fs::path(here.dir).lexically_normal().string()
       << "/tuning` writes as `tuning/transfer_tuning.csv`, `transfer_tuning.json` and `pkbench_tuning.h` "
          "(`lookup_transfer(machine, direction, pattern, choice, bytes)`), from `transfer/transfer.csv`. "
       << t.doc
       << " \"tied\" counts the configurations within the fastest's noise; \"gap\" is how much slower the best "
          "configuration outside the noise was.\n\n"
       << "| direction | pattern | bucket | any: mechanism, config | GB/s | tied | gap | device: mechanism, config | "
          "GB/s | fewest SMs >= 90 % |\n|---|---|---|---|---:|---:|---:|---|---:|---|\n";
    // Pair the any/device rows of one bucket.
    std::map<std::tuple<std::string, std::string, int64_t>, std::pair<int, int>> rows;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      auto k = std::make_tuple(cell_text(t.at(i, "direction")), cell_text(t.at(i, "pattern")),
                               std::get<int64_t>(t.at(i, "from_bytes")));
      auto& p = rows.emplace(k, std::make_pair(-1, -1)).first->second;
      (cell_text(t.at(i, "choice")) == "any" ? p.first : p.second) = static_cast<int>(i);
    }
    auto config = [&](int i) {
      std::string c = cell_text(t.at(i, "mechanism"));
      std::string k;
      for (const auto& name : pk::transfer::transfer_knob_columns()) {
        const Cell& v = t.at(i, name);
        if (!std::holds_alternative<std::monostate>(v)) k += (k.empty() ? "" : " ") + name + "=" + cell_text(v);
      }
      return k.empty() ? c : c + " (" + k + ")";
    };
    for (const auto& [k, p] : rows) {
      const auto& [dir, pat, from] = k;
      os << "| " << dir << " | " << pat << " | " << size_text(static_cast<uint64_t>(from)) << " |";
      if (p.first >= 0) {
        const Cell& gap = t.at(p.first, "runner_up_gap_pct");
        os << " " << config(p.first) << " | " << cell_text(t.at(p.first, "gbps"), 1) << " | "
           << cell_text(t.at(p.first, "tied")) << " of " << cell_text(t.at(p.first, "candidates")) << " | "
           << (std::holds_alternative<std::monostate>(gap) ? "-" : cell_text(gap, 1) + " %") << " |";
      } else {
        os << " - | | | |";
      }
      if (p.second >= 0) {
        const Cell& m90 = t.at(p.second, "min_sms_90");
        os << " " << config(p.second) << " | " << cell_text(t.at(p.second, "gbps"), 1) << " | "
           << (std::holds_alternative<std::monostate>(m90)
                   ? std::string("-")
                   : cell_text(m90) + (std::get<bool>(t.at(p.second, "sms_swept")) ? "" : " (SMs not swept)"))
           << " |\n";
      } else {
        os << " - | | |\n";
      }
    }
  }

}

// What each point cost the harness (wall time minus timed samples), where the CSVs say it.
void section_point_costs(std::ostream& os, const ResultsFolder& here) {
  if (here.point_costs.empty()) return;
  os << "\n## Harness cost per point\n\nEach point's wall time (from the previous row to its own) minus the time its "
        "timed samples measured, over the points of status ok, with the parts the harness named (medians; `samples` "
        "is the host time around the timed samples, `other` what no part named). microbench/harness/point_cost.h says "
        "what each study times.\n\n"
     << point_cost_table(here.point_costs);
}

// Every target of every study: figure, baseline, its cross-check, verdict.
void section_targets(std::ostream& os, const ResultsFolder& here) {
  const auto targets = all_targets(here);
  os << "\n## Targets\n\nEvery target of every study measured in this folder, judged by one rule (microbench/harness/verdict.h): "
        "the figure against the target; where the figure is a speedup, the baseline it was measured against and that "
        "baseline's cross-check against its own tool in the same call (within "
     << num(100 * kCrossCheckTolerance, 0)
     << " % = checked). A baseline off its tool by more than that gets no speedup claimed over it: the verdict "
        "says so instead of met. Baselines without a cross-check read \"not checked\".\n\n"
     << targets_table_markdown(targets);
  os << "\n" << target_count_text(targets) << ".";
  if (here.transfer_elapsed_s >= 0) os << " The transfer study's wall time comes from " << here.elapsed_source << ".";
  if (here.sync)
    os << " The sync study's latencies are in the claims table above; its own targets concern how they were "
          "measured.";
  os << "\n" << targets_info_markdown(targets);
}

}  // namespace

std::string report_markdown(const ResultsFolder& here, const ResultsFolder* other, const std::string& command) {
  std::ostringstream os;
  os << "# pkbench report: " << here.machine_key() << "\n\n"
     << "Generated by `" << command << "` (scripts/report.sh) from the CSVs in this folder; regenerate rather "
        "than edit. Every number is a measured row of a CSV named below; the paper's numbers are quoted from its "
        "text (8x H100 unless it says B200).\n\n";
  section_studies(os, here);
  section_environment(os, here);
  section_figures(os, here);
  section_claims(os, here, other);
  if (other) section_other_machine(os, here, other);
  section_collectives(os, here);
  section_fused(os, here);
  section_gemm(os, here);
  section_transfer_tuning(os, here);
  section_point_costs(os, here);
  section_targets(os, here);
  return os.str();
}

}  // namespace pk::sweeps
