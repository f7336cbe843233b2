#include "microbench/fused/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "microbench/fused/fused_problem.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/csv_table.h"
#include "microbench/transfer/mechanism.h"

namespace pk::fused::model {
namespace {

using pk::ColumnType;
using pk::CsvTable;
using pk::Field;
using pk::ReadOptions;
using transfer::mechanism_uses_sms;

// The fused CSV's header is checked against this study's own declaration (a column the study
// never wrote is refused, as the sweeps refuse it); the other studies' files against the fields
// read (their declarations live in studies this one does not include: tests/cli/layering.sh).
CsvTable read(const std::string& path, const std::string& study, const std::vector<Field>& fields) {
  ReadOptions o;
  o.study = study;
  if (study == "fused") o.schemas = pk::own_study_schemas("fused", &fused_read_columns, "pk::fused::fused_read_columns()");
  return CsvTable::read(path, fields, o);
}

void note_machine(Ceilings& c, const CsvTable& t) { c.machines.push_back({t.path(), t.machine().gpu_name}); }

std::string at(const CsvTable& t, size_t row) { return t.path() + ":" + std::to_string(t.line_of(row)); }

constexpr double kTileBytes = double(kTileM) * kTileN * 2;  // one output tile of the fused kernels, bf16

}  // namespace

double interpolate(const Curve& c, double x) {
  if (c.empty()) return 0;
  if (x <= c.front().first) return c.front().first > 0 ? c.front().second * x / c.front().first : c.front().second;
  for (size_t i = 1; i < c.size(); ++i)
    if (x <= c[i].first) {
      const auto [x0, y0] = c[i - 1];
      const auto [x1, y1] = c[i];
      return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
  return c.back().second;
}

double Ceilings::gemm_tflops(const Shape& s, int sms) const {
  double full = gemm_full_default;
  for (const auto& [shape, tf] : gemm_full)
    if (shape == s.str()) full = tf;
  const double frac = gemm_sm_fraction.empty() ? double(sms) / sm_count : interpolate(gemm_sm_fraction, sms);
  return full * frac;
}

namespace {
double waves(double tiles, int sms) { return std::ceil(tiles / std::max(1, sms)); }
double output_tiles(const Shape& s) { return std::ceil(double(s.m) / kTileM) * std::ceil(double(s.n) / kTileN); }
}  // namespace

double Ceilings::comp_us(const Shape& s, int sms) const {
  const double t_full_us = s.flops() / (gemm_tflops(s, sm_count) * 1e12) * 1e6;
  const double wave_us = t_full_us / waves(output_tiles(s), sm_count);
  // A wave's time at `sms` against all SMs: the SM curve's rate ratio with its own shape's
  // wave counts taken out (fewer SMs each get more of the memory system). Without a curve the
  // rate per SM is constant, so a wave takes as long on any SM count.
  double slow = 1;
  if (!gemm_sm_fraction.empty())
    slow = waves(gemm_sm_curve_tiles, sm_count) / waves(gemm_sm_curve_tiles, sms) / interpolate(gemm_sm_fraction, sms);
  return waves(output_tiles(s), sms) * wave_us * slow;
}

namespace {

using GemmRates = std::map<std::string, std::pair<double, double>>;  // shape -> (flops, TFLOP/s at all SMs)

// The link and HBM rates (transfer.csv): the best device-initiated rates, and TMA's one-way
// rate by SM count.
void read_transfer_ceilings(Ceilings& c, const std::string& transfer_csv) {
  using T = ColumnType;
  const CsvTable t = read(transfer_csv, "transfer",
                          {{"sweep"}, {"mechanism"}, {"pattern"}, {"sms", T::integer, false}, {"gbps", T::number}, {"status"}});
  note_machine(c, t);
  std::map<int, double> by_sms;
  std::string bidir_at, oneway_at, hbm_at;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    const std::string_view mech = t.text(i, "mechanism"), pat = t.text(i, "pattern");
    const double g = t.number(i, "gbps");
    if (pat == "local") {
      if (2 * g > c.hbm_gbps) c.hbm_gbps = 2 * g, hbm_at = at(t, i);
      continue;
    }
    if (!mechanism_uses_sms(mech)) continue;  // a copy engine: not what a kernel's SMs reach
    if (pat == "bidir" && g > c.link_bidir_gbps) c.link_bidir_gbps = g, bidir_at = at(t, i);
    if (pat == "one_way" && g > c.link_oneway_gbps) c.link_oneway_gbps = g, oneway_at = at(t, i);
    if (pat == "one_way" && t.text(i, "sweep") == "fig3" && mech.rfind("tma", 0) == 0) {
      double& best = by_sms[static_cast<int>(t.integer(i, "sms"))];
      best = std::max(best, g);
    }
  }
  if (c.link_oneway_gbps <= 0 && c.link_bidir_gbps <= 0)
    throw std::runtime_error(transfer_csv + ": no device-initiated one_way or bidir row with status ok (the link rate)");
  if (c.hbm_gbps <= 0) throw std::runtime_error(transfer_csv + ": no `local` pattern row with status ok (the HBM rate)");
  if (c.link_bidir_gbps <= 0) c.link_bidir_gbps = c.link_oneway_gbps, bidir_at = oneway_at + " (one-way: no bidir row)";
  if (c.link_oneway_gbps <= 0) c.link_oneway_gbps = c.link_bidir_gbps, oneway_at = bidir_at;
  for (const auto& [s, g] : by_sms) c.link_by_sms.push_back({double(s), g});
  c.sources.push_back("link, both GPUs sending: " + fmt_num(c.link_bidir_gbps, 4) + " GB/s per direction (" + bidir_at + ")");
  c.sources.push_back("link, one way: " + fmt_num(c.link_oneway_gbps, 4) + " GB/s (" + oneway_at + ")");
  c.sources.push_back("link by SM count (TMA, fig3 sweep): " + std::to_string(c.link_by_sms.size()) + " points" +
                      (c.link_by_sms.empty() ? " (none: inter-SM communication runs at the one-way rate)" : ""));
  c.sources.push_back("HBM: " + fmt_num(c.hbm_gbps, 4) + " GB/s = 2 x the best local copy (" + hbm_at + ")");
}

// The launch cost and the flag latencies (sync.csv): the fastest of each.
void read_sync_ceilings(Ceilings& c, const std::string& sync_csv) {
  using T = ColumnType;
  const CsvTable t = read(sync_csv, "sync",
                          {{"level"}, {"primitive"}, {"scope"}, {"semantics"}, {"placement"}, {"one_way_ns", T::number}, {"status"}});
  note_machine(c, t);
  std::string launch_at, gpu_at, sys_at, mbar_at;
  auto keep_min = [](double& v, double x, std::string& where, const std::string& w) {
    if (x > 0 && (v == 0 || x < v)) v = x, where = w;
  };
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    const std::string_view lv = t.text(i, "level"), pr = t.text(i, "primitive"), sc = t.text(i, "scope"),
                           se = t.text(i, "semantics"), pl = t.text(i, "placement");
    const double ns = t.number(i, "one_way_ns");
    if (lv == "host" && pr == "kernel_launch" && se == "back_to_back") keep_min(c.launch_ns, ns, launch_at, at(t, i));
    if (lv == "inter_sm" && pr == "flag_pingpong" && sc == "gpu" && se == "release_acquire")
      keep_min(c.sync_gpu_ns, ns, gpu_at, at(t, i));
    if (lv == "cross_gpu" && pr == "flag_pingpong" && sc == "sys" && pl == "remote_write_local_poll" &&
        (se == "red_release" || se == "release_acquire"))
      keep_min(c.sync_sys_ns, ns, sys_at, at(t, i));
    if (lv == "intra_sm" && pr == "mbarrier_pingpong") keep_min(c.mbarrier_ns, ns, mbar_at, at(t, i));
  }
  if (c.launch_ns <= 0) throw std::runtime_error(sync_csv + ": no host/kernel_launch/back_to_back row (the launch cost)");
  if (c.sync_gpu_ns <= 0)
    throw std::runtime_error(sync_csv + ": no inter_sm/flag_pingpong/gpu/release_acquire row (the inter-SM flag)");
  if (c.sync_sys_ns <= 0)
    throw std::runtime_error(sync_csv + ": no cross_gpu/flag_pingpong/sys row, remote_write_local_poll (the cross-GPU flag)");
  c.sources.push_back("launch: " + fmt_num(c.launch_ns, 4) + " ns back to back (" + launch_at + ")");
  c.sources.push_back("inter-SM flag: " + fmt_num(c.sync_gpu_ns, 4) + " ns one way (" + gpu_at + ")");
  c.sources.push_back("cross-GPU flag: " + fmt_num(c.sync_sys_ns, 4) + " ns one way (" + sys_at + ")");
  if (c.mbarrier_ns > 0) c.sources.push_back("mbarrier: " + fmt_num(c.mbarrier_ns, 4) + " ns one way (" + mbar_at + ")");
}

// The GEMM alone at every SM, per shape, from the fused study's gemm_pk rows.
void read_fused_gemm_rates(Ceilings& c, const std::string& fused_csv, GemmRates& full) {
  using T = ColumnType;
  const CsvTable t = read(fused_csv, "fused",
                          {{"impl"}, {"m", T::integer}, {"n", T::integer}, {"k", T::integer},
                           {"compute_sms", T::integer, false}, {"tflops", T::number, false}, {"status"}});
  note_machine(c, t);
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok" || t.text(i, "impl") != "gemm_pk") continue;
    const Shape s{int(t.integer(i, "m")), int(t.integer(i, "n")), int(t.integer(i, "k"))};
    full[s.str()] = {s.flops(), t.number(i, "tflops")};
    c.sm_count = std::max(c.sm_count, static_cast<int>(t.integer(i, "compute_sms")));
    c.sources.push_back("GEMM " + s.str() + " at every SM: " + fmt_num(t.number(i, "tflops"), 4) + " TFLOP/s (" + at(t, i) + ")");
  }
}

// The GEMM study's c1 rows: each shape's rate at its most SMs (where the fused CSV has none)
// and the SM-count curve of the shape measured at the most SM counts.
void read_gemm_rates(Ceilings& c, const std::string& gemm_csv, GemmRates& full) {
  using T = ColumnType;
  const CsvTable t = read(gemm_csv, "gemm",
                          {{"impl"}, {"variant"}, {"m", T::integer}, {"n", T::integer}, {"k", T::integer},
                           {"sms", T::integer}, {"tflops", T::number}, {"status"}});
  note_machine(c, t);
  std::map<std::string, std::map<int, double>> curves;
  std::map<std::string, double> flops;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok" || t.text(i, "impl") != "pkbench" || t.text(i, "variant") != "c1") continue;
    const Shape s{int(t.integer(i, "m")), int(t.integer(i, "n")), int(t.integer(i, "k"))};
    curves[s.str()][static_cast<int>(t.integer(i, "sms"))] = t.number(i, "tflops");
    flops[s.str()] = s.flops();
  }
  if (curves.empty()) throw std::runtime_error(gemm_csv + ": no pkbench c1 row with status ok");
  std::string widest;
  for (const auto& [s, cv] : curves) {
    const int top = cv.rbegin()->first;
    c.sm_count = std::max(c.sm_count, top);
    if (!full.count(s)) full[s] = {flops[s], cv.rbegin()->second};
    if (widest.empty() || cv.size() > curves[widest].size()) widest = s;
  }
  const auto& cv = curves[widest];
  const double top = cv.rbegin()->second;
  for (const auto& [sms, tf] : cv) c.gemm_sm_fraction.push_back({double(sms), tf / top});
  const Shape ws = gemm::parse_shapes(widest).front();
  c.gemm_sm_curve_tiles = output_tiles(ws);
  c.sources.push_back("GEMM SM-count curve: " + widest + ", " + std::to_string(cv.size()) + " SM counts (" + gemm_csv + ")");
}

}  // namespace

// One GPU communicates nothing (T_comm 0 at any rate): its points need no communicator-only rate.
// The one statement of the rule: run.sh asks it (pkbench_cost_model --needs-comm-only), --regenerate pairs by it.
bool needs_communicator(const FusedPoint& p) {
  return p.schedule == "inter_sm" && p.op != Op::ag_gemm && p.world >= 2;
}

void read_communicator_rates(Ceilings& c, const std::string& comm_only_csv) {
  using T = ColumnType;
  const CsvTable t = read(comm_only_csv, "fused",
                          {{"op"}, {"impl"}, {"gpus", T::integer}, {"m", T::integer}, {"n", T::integer}, {"k", T::integer},
                           {"comm_sms", T::integer}, {"time_us_median", T::number}, {"status"},
                           {"git_commit", T::text, false}});
  note_machine(c, t);
  std::map<std::pair<Op, int>, std::map<int, std::pair<double, std::string>>> best;  // (op, gpus) -> SMs -> (GB/s, row)
  std::vector<std::string> commits;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok" || t.text(i, "impl") != "inter_sm") continue;
    const Op op = parse_op(std::string(t.text(i, "op")));
    if (op == Op::ag_gemm) continue;  // AG+GEMM's T_comm stays on the transfer study's TMA curve
    const int w = static_cast<int>(t.integer(i, "gpus"));
    if (w < 2) continue;  // one GPU moves no bytes: no rate (and no point needs one: needs_communicator)
    const int64_t sms = t.integer(i, "comm_sms");
    const double us = t.number(i, "time_us_median");
    if (sms <= 0 || !(us > 0)) throw std::runtime_error(at(t, i) + ": an inter_sm row without comm_sms or time_us_median");
    const Shape s{int(t.integer(i, "m")), int(t.integer(i, "n")), int(t.integer(i, "k"))};
    // T_comm's bytes (predict(): inter-SM RS (w-1)/w of C, AR twice that) over the whole row.
    const double gbps = collective_bytes(op, s, w) / (us * 1e3);
    auto& b = best[{op, w}][static_cast<int>(sms)];
    if (gbps > b.first) b = {gbps, at(t, i)};
    commits.emplace_back(t.text(i, "git_commit"));
  }
  if (best.empty())
    throw std::runtime_error(comm_only_csv +
                             ": no inter_sm row of gemm_rs or gemm_ar on 2 or more GPUs with status ok (the communicator-only rates)");
  for (const auto& [key, by_sms] : best) {
    Curve& cv = c.communicator[key];
    std::string list;
    for (const auto& [sms, g] : by_sms) {
      cv.push_back({double(sms), g.first});
      list += (list.empty() ? "" : ", ") + std::to_string(sms) + " SMs " + fmt_num(g.first, 4) + " (" +
              fmt_num(g.first / sms, 3) + " per SM, " + g.second + ")";
    }
    c.sources.push_back("communicator alone, " + op_name(key.first) + " on " + std::to_string(key.second) +
                        " GPUs, GB/s: " + list);
  }
  std::sort(commits.begin(), commits.end());
  commits.erase(std::unique(commits.begin(), commits.end()), commits.end());
  c.communicator_commits = commits;
}

Ceilings read_ceilings(const std::string& gemm_csv, const std::string& transfer_csv, const std::string& sync_csv,
                       const std::string& fused_csv) {
  Ceilings c;
  read_transfer_ceilings(c, transfer_csv);
  read_sync_ceilings(c, sync_csv);
  GemmRates full;
  if (!fused_csv.empty()) read_fused_gemm_rates(c, fused_csv, full);
  if (!gemm_csv.empty()) read_gemm_rates(c, gemm_csv, full);
  if (full.empty()) throw std::runtime_error("no GEMM rate: give gemm.csv or a fused CSV with gemm_pk rows");
  double best_flops = 0;
  for (const auto& [s, v] : full) {
    c.gemm_full.push_back({s, v.second});
    if (v.first > best_flops) best_flops = v.first, c.gemm_full_default = v.second;
  }
  if (c.sm_count <= 0) throw std::runtime_error("no SM count in the GEMM rows");
  if (c.gemm_sm_fraction.empty())
    c.sources.push_back("GEMM SM-count curve: none (no gemm.csv): the rate scales linearly with the SMs");
  return c;
}

Prediction predict(const Ceilings& c, const FusedPoint& p) {
  const bool intra = p.schedule == "intra_sm";
  const int w = std::max(1, p.world);
  const double part = double(w - 1) / w;
  const double m = p.shape.m, n = p.shape.n, k = p.shape.k;
  const double a = m * k * 2, b = n * k * 2, cc = m * n * 2;
  const int csms = p.compute_sms > 0 ? p.compute_sms : c.sm_count - p.comm_sms;
  const double tiles = output_tiles(p.shape);
  const double wave = std::min(tiles, double(csms)) * kTileBytes;
  Prediction r;
  // Compute on the GEMM's SMs, in whole waves of tiles.
  r.comp_us = c.comp_us(p.shape, csms);
  // HBM bytes, per schedule (see cost_model.h).
  double hbm = 0, comm = 0, tail = 0, zero = 0;
  switch (p.op) {
    case Op::gemm_rs:
      hbm = a + b + 2 * cc + cc / w;  // partial out (or reduce-add read-modify-write) + the shard
      comm = part * cc;
      tail = part * wave;
      zero = intra ? cc / w : 0;
      break;
    case Op::gemm_ar:
      hbm = a + b + (intra ? 2 * w * cc : 3 * cc);
      comm = intra ? (w - 1) * cc : 2 * part * cc;
      tail = (intra ? (w - 1) : 2 * part) * wave;
      zero = intra ? cc : 0;
      break;
    case Op::ag_gemm:
      hbm = a + b + cc + (intra ? 0 : part * a);
      comm = part * a * (intra ? n / 256 : 1);
      break;
  }
  double link = c.link_bidir_gbps;
  if (needs_communicator(p)) {
    // The communicator's own measured rate on p.comm_sms (read_communicator_rates).
    const auto it = c.communicator.find({p.op, w});
    if (it == c.communicator.end() || it->second.empty())
      throw std::runtime_error("no communicator-only rate for " + op_name(p.op) + " on " + std::to_string(w) +
                               " GPUs (inter_sm " + p.shape.str() + ", " + std::to_string(p.comm_sms) + " comm SMs)");
    link = interpolate(it->second, p.comm_sms);
  } else if (!intra) {
    const double by_sms = c.link_by_sms.empty() ? c.link_oneway_gbps : interpolate(c.link_by_sms, p.comm_sms);
    link = std::min(link, by_sms);
  }
  r.mem_us = hbm / (c.hbm_gbps * 1e9) * 1e6;
  r.comm_us = comm / (link * 1e9) * 1e6;
  r.non_overlap_us = tail / (link * 1e9) * 1e6 + zero / (c.hbm_gbps * 1e9) * 1e6;
  // Handshakes on the critical path: intra RS/AR zeroed + done; inter RS the owner's unit
  // flag (+ AR's done); AG the shard-ready slot (+ inter's row flag); inter-SM hand-offs.
  const bool reduce = p.op != Op::ag_gemm;
  double sync_ns = c.sync_sys_ns;
  if (reduce && (intra || p.op == Op::gemm_ar)) sync_ns += c.sync_sys_ns;
  if (!intra) sync_ns += c.sync_gpu_ns;
  r.sync_us = sync_ns / 1e3;
  r.launch_us = c.launch_ns * (intra && reduce ? 2 : 1) / 1e3;
  const double top = std::max({r.comp_us, r.mem_us, r.comm_us});
  r.dominant = top == r.comp_us ? "comp" : top == r.mem_us ? "mem" : "comm";
  r.total_us = r.launch_us + top + r.non_overlap_us + r.sync_us;
  return r;
}

std::vector<FusedPoint> read_fused_points(const std::string& fused_csv) {
  using T = ColumnType;
  const CsvTable t = read(fused_csv, "fused",
                          {{"op"}, {"impl"}, {"gpus", T::integer}, {"m", T::integer}, {"n", T::integer}, {"k", T::integer},
                           {"comm_sms", T::integer, false}, {"compute_sms", T::integer, false},
                           {"time_us_median", T::number, false}, {"status"}, {"gpu_name", T::text, false},
                           {"git_commit", T::text, false}});
  std::vector<FusedPoint> v;
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string impl(t.text(i, "impl"));
    if (t.text(i, "status") != "ok" || (impl != "intra_sm" && impl != "inter_sm")) continue;
    FusedPoint p;
    p.op = parse_op(std::string(t.text(i, "op")));
    p.schedule = impl;
    p.shape = Shape{int(t.integer(i, "m")), int(t.integer(i, "n")), int(t.integer(i, "k"))};
    p.world = static_cast<int>(t.integer(i, "gpus"));
    p.comm_sms = impl == "inter_sm" ? static_cast<int>(t.integer(i, "comm_sms")) : 0;
    p.compute_sms = static_cast<int>(t.integer(i, "compute_sms"));
    p.measured_us = t.number(i, "time_us_median");
    p.gpu = std::string(t.text(i, "gpu_name"));
    p.commit = std::string(t.text(i, "git_commit"));
    v.push_back(p);
  }
  return v;
}

int predict_best_split(const Ceilings& c, FusedPoint p, const std::vector<int>& candidates) {
  int best = 0;
  double best_us = std::numeric_limits<double>::infinity();
  p.schedule = "inter_sm";
  for (int s : candidates) {
    if (s <= 0 || s >= c.sm_count) continue;
    p.comm_sms = s;
    p.compute_sms = c.sm_count - s;
    const double t = predict(c, p).total_us;
    if (t < best_us) best_us = t, best = s;
  }
  return best;
}

double hide_k(double tflops, double gbps, int world) {
  const double share = world > 1 ? double(world - 1) / world : 1.0;
  return 2 * tflops * 1e12 * share / (2 * gbps * 1e9);
}

}  // namespace pk::fused::model
