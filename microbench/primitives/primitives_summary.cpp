#include "microbench/primitives/primitives_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "microbench/primitives/primitives_schema.h"
#include "microbench/harness/csv_table.h"

namespace pk::prim {

// ---------------------------------------------------------------- reading

const StudySchemas& own_schema() {
  static const StudySchemas own = {declared_study("primitives", study_columns(), "pk::prim::study_columns()")};
  return own;
}

PrimitivesRows read_csv(const std::string& path) {
  std::vector<Field> fields;
  for (const auto& h : peek_csv(path).header) fields.push_back({h, ColumnType::text, true});
  const CsvTable t = CsvTable::read(path, fields, {"primitives", true, &own_schema()});
  PrimitivesRows out;
  for (const auto& f : fields) out.columns.push_back(f.name);
  for (size_t i = 0; i < t.rows(); ++i) {
    Row r;
    for (const auto& c : out.columns) r[c] = std::string(t.text(i, c));
    out.rows.push_back(std::move(r));
  }
  return out;
}

namespace {

const std::string& col(const Row& r, const std::string& k) {
  static const std::string empty;
  auto it = r.find(k);
  return it == r.end() ? empty : it->second;
}

bool matches(const Row& r, const std::map<std::string, std::string>& where) {
  for (const auto& [k, v] : where)
    if (col(r, k) != v) return false;
  return true;
}

}  // namespace

std::vector<const Row*> all_ok(const PrimitivesRows& t, const std::map<std::string, std::string>& where) {
  std::vector<const Row*> v;
  for (const Row& r : t.rows)
    if (col(r, "status") == "ok" && matches(r, where)) v.push_back(&r);
  return v;
}

const Row* find_ok(const PrimitivesRows& t, const std::map<std::string, std::string>& where) {
  auto v = all_ok(t, where);
  return v.empty() ? nullptr : v.front();
}

double value_of(const Row& r) {
  const std::string& v = col(r, "value");
  if (v.empty()) return NAN;
  try {
    return std::stod(v);
  } catch (const std::exception&) {
    return NAN;
  }
}

// ---------------------------------------------------------------- writing

namespace {

// v in printf format `fmt`, "-" when not a number.
std::string shown(const char* fmt, double v) {
  if (!std::isfinite(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}
std::string ns(double v) { return shown(v >= 100 ? "%.0f ns" : "%.1f ns", v); }
std::string gbps(double v) { return shown("%.1f GB/s", v); }
std::string ratio(double v) { return shown("%.2fx", v); }
std::string signed_gbps(double v) { return shown("%+.1f GB/s", v); }
double val(const Row* r) { return r ? value_of(*r) : NAN; }

// The smallest value among rows (latencies), or the largest (bandwidths).
const Row* best(const std::vector<const Row*>& v, bool lowest) {
  const Row* b = nullptr;
  for (const Row* r : v) {
    const double x = value_of(*r);
    if (!std::isfinite(x)) continue;
    if (!b || (lowest ? x < value_of(*b) : x > value_of(*b))) b = r;
  }
  return b;
}

// The row's protocol: its column, or for a CSV written before the column existed, the same
// derivation the binary uses.
std::string protocol(const Row& r) {
  return col(r, "protocol").empty() ? protocol_of(col(r, "op"), col(r, "mode")) : col(r, "protocol");
}

std::string describe(const Row& r) {
  std::string d = col(r, "style") + " " + col(r, "op");
  for (const char* k : {"scope", "mode", "mechanism", "ordering", "memory", "placement"})
    if (!col(r, k).empty() && col(r, k) != "symbuf") d += " " + col(r, k);
  if (!col(r, "elem_bytes").empty()) d += " " + col(r, "elem_bytes") + "B";
  return d;
}

struct Pair {
  std::string label;
  double pk = NAN, lib = NAN;
};
// The element-put comparisons the paper's numbers are judged on: latency and bandwidth,
// PK against NVSHMEM and against NCCL's device API.
struct PutPairs {
  std::vector<Pair> lat_nv, lat_nccl, bw_nv, bw_nccl;
};

// Element-put rows of one style at one (metric, elem, scope, mode).
const Row* put_row(const PrimitivesRows& t, const std::string& style, const std::string& metric, const std::string& elem,
                   const std::string& scope, const std::string& mode) {
  return find_ok(t, {{"op", "put"}, {"style", style}, {"metric", metric}, {"elem_bytes", elem}, {"scope", scope},
                     {"mode", mode}});
}

// The element-put tables (latency, then bandwidth), collecting the comparisons in `pairs`.
void put_tables(std::ostringstream& os, const PrimitivesRows& t, PutPairs* pairs) {
  for (const char* metric : {kMetricLatency, kMetricGbps}) {
    const bool lat = std::string(metric) == kMetricLatency;
    std::vector<Pair>* nv = lat ? &pairs->lat_nv : &pairs->bw_nv;
    std::vector<Pair>* nccl = lat ? &pairs->lat_nccl : &pairs->bw_nccl;
    auto fmt = [&](double v) { return lat ? ns(v) : gbps(v); };
    // Latency: how many times lower PK's is; bandwidth: how much more PK moves.
    auto cmp = [&](double lib, double pk) { return lat ? ratio(lib / pk) : signed_gbps(pk - lib); };
    os << (lat ? "### Element-wise put latency (per call, amortising one completion per 64 calls)\n\n"
               : "### Element-wise put bandwidth (GB/s per direction, whole grid)\n\n");
    os << "| elem | scope | pk | nvshmem blocking | nvshmem nbi | nccl_dev | "
       << (lat ? "nvshmem blocking / pk | nvshmem nbi / pk | nccl_dev / pk" : "pk - nvshmem blocking | pk - nvshmem nbi | pk - nccl_dev")
       << " |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const char* elem : {"4", "16"})
      for (const char* scope : {"thread", "warp", "block"}) {
        const double pk = val(put_row(t, kStylePk, metric, elem, scope, "st"));
        const double nb = val(put_row(t, kStyleNvshmem, metric, elem, scope, "blocking"));
        const double nn = val(put_row(t, kStyleNvshmem, metric, elem, scope, "nbi"));
        const double nc = val(put_row(t, kStyleNcclDev, metric, elem, scope, "st"));
        os << "| " << elem << " B | " << scope << " | " << fmt(pk) << " | " << fmt(nb) << " | " << fmt(nn) << " | "
           << fmt(nc) << " | " << cmp(nb, pk) << " | " << cmp(nn, pk) << " | " << cmp(nc, pk) << " |\n";
        const std::string label = std::string(elem) + " B " + scope;
        nv->push_back({label + " blocking", pk, nb});
        nv->push_back({label + " nbi", pk, nn});
        nccl->push_back({label, pk, nc});
      }
    // 4-B element-wise put of a value made in registers (the element-wise API itself, no source load).
    const double pk = val(put_row(t, kStylePk, metric, "4", "thread", "reg"));
    const double nvv = val(put_row(t, kStyleNvshmem, metric, "4", "thread", "reg"));
    const double nc = val(put_row(t, kStyleNcclDev, metric, "4", "thread", "reg"));
    if (std::isfinite(pk)) {
      os << "\nValue from a register (4 B, thread scope: nvshmem_uint_p(dest, value, pe) against one st.global): pk "
         << fmt(pk) << ", nvshmem " << fmt(nvv) << " (" << cmp(nvv, pk) << "), nccl_dev " << fmt(nc) << " ("
         << cmp(nc, pk) << ").\n";
      nv->push_back({lat ? "4 B thread, register value (nvshmem_uint_p)" : "4 B thread, register value", pk, nvv});
      nccl->push_back({"4 B thread, register value", pk, nc});
    }
    os << "\n";
  }
}

// The largest library/PK latency ratio and its label, over finite pairs.
std::string max_ratio(const std::vector<Pair>& v, double* out = nullptr) {
  double m = NAN;
  std::string where;
  for (const Pair& p : v) {
    const double r = p.lib / p.pk;
    if (std::isfinite(r) && (!std::isfinite(m) || r > m)) {
      m = r;
      where = p.label;
    }
  }
  if (out) *out = m;
  return std::isfinite(m) ? ratio(m) + " (" + where + ")" : "-";
}
std::string range_ratio(const std::vector<Pair>& v) {
  double lo = NAN, hi = NAN;
  for (const Pair& p : v) {
    const double r = p.lib / p.pk;
    if (!std::isfinite(r)) continue;
    lo = std::isfinite(lo) ? std::min(lo, r) : r;
    hi = std::isfinite(hi) ? std::max(hi, r) : r;
  }
  return std::isfinite(lo) ? ratio(lo) + " .. " + ratio(hi) : "-";
}
std::string range_gain(const std::vector<Pair>& v) {
  double lo = NAN, hi = NAN;
  for (const Pair& p : v) {
    const double g = p.pk - p.lib;
    if (!std::isfinite(g)) continue;
    lo = std::isfinite(lo) ? std::min(lo, g) : g;
    hi = std::isfinite(hi) ? std::max(hi, g) : g;
  }
  return std::isfinite(lo) ? signed_gbps(lo) + " .. " + signed_gbps(hi) : "-";
}

std::string join(const std::set<std::string>& s) {
  std::string o;
  for (const auto& x : s) o += (o.empty() ? "" : ", ") + x;
  return o.empty() ? std::string("-") : o;
}

// The library styles' ok rows matching `where` (NVSHMEM's, then NCCL's).
std::vector<const Row*> library_rows(const PrimitivesRows& t, std::map<std::string, std::string> where) {
  std::vector<const Row*> v;
  for (const char* st : {kStyleNvshmem, kStyleNcclDev}) {
    where["style"] = st;
    for (const Row* r : all_ok(t, where)) v.push_back(r);
  }
  return v;
}

// The PK rows that carry data and a flag correctly, of protocol `p` (derived where the CSV
// predates the protocol column).
std::vector<const Row*> pk_correct_put_signals(const PrimitivesRows& t, const std::string& p) {
  std::vector<const Row*> v;
  for (const Row* r : all_ok(t, {{"op", "put_signal"}, {"style", kStylePk}, {"protocol_correct", "yes"}}))
    if (protocol(*r) == p) v.push_back(r);
  return v;
}

void write_header(std::ostringstream& os, const PrimitivesRows& t) {
  std::set<std::string> gpus, modes, commits, libs;
  for (const Row& r : t.rows) {
    if (!col(r, "gpu_name").empty()) gpus.insert(col(r, "gpu_name") + " x" + col(r, "gpu_count"));
    if (!col(r, "peer_mode").empty()) modes.insert(col(r, "peer_mode") + " (" + col(r, "ranks") + " process(es))");
    if (!col(r, "git_commit").empty()) commits.insert(col(r, "git_commit"));
    if (!col(r, "library").empty()) libs.insert(col(r, "library"));
  }
  os << "# Library primitives beside PK-style access: summary\n\n"
     << "GPUs: " << join(gpus) << ". Peer mode: " << join(modes) << ". Commit: " << join(commits)
     << ". Libraries: " << join(libs) << ".\n\n"
     << "Generated by `pkbench_primitives_summary` from the primitives CSV beside this file: every ratio below "
        "compares rows of that one run (same GPUs, same process layout). Styles: `pk` = addresses from the "
        "symmetric table held in registers and the project's PTX wrappers; `nvshmem` = NVSHMEM's public device API "
        "(one process per GPU; version: as the loaded library reported it, under Libraries); `nccl_dev` = NCCL's "
        "device API (LSA pointers and barriers); `emulation` = "
        "our own NVSHMEM-shaped code (kernels/sync_library_style.cuh), **not** NVSHMEM. Latencies are medians of "
        "in-kernel clock64 times converted at the SM clock measured against %globaltimer; one-way = half the "
        "ping-pong round trip.\n\n";
}

void write_paper_numbers(std::ostringstream& os, const PrimitivesRows& t, const PutPairs& p) {
  const Row* emu_bw = find_ok(t, {{"op", "put"}, {"style", kStyleEmulation}, {"metric", kMetricGbps}});
  const Row* pk_bw4 = put_row(t, kStylePk, kMetricGbps, "4", "block", "st");
  os << "## The paper's numbers beside ours\n\n| quantity | paper | measured | what was compared |\n|---|---|---|---|\n";
  os << "| element-wise put latency, NVSHMEM / PK | up to " << ratio(kPaperLatencyRatio) << " | up to "
     << max_ratio(p.lat_nv) << "; range " << range_ratio(p.lat_nv)
     << " | per call of nvshmem_uint_p / put128 / nvshmemx_*_put[_nbi]_{warp,block} vs one st.global each |\n";
  os << "| element-wise put latency, NCCL device API / PK | - | up to " << max_ratio(p.lat_nccl) << "; range "
     << range_ratio(p.lat_nccl) << " | ncclGetLsaPointer + store per element vs one st.global |\n";
  os << "| element-wise put bandwidth, PK - NVSHMEM | about +" << kPaperBandwidthGain << " GB/s | "
     << range_gain(p.bw_nv) << " | same grid, 4 and 16 B, thread/warp/block scope |\n";
  os << "| element-wise put bandwidth, PK - NCCL device API | - | " << range_gain(p.bw_nccl) << " | same grid |\n";
  if (emu_bw && pk_bw4)
    os << "| put bandwidth, PK - emulation (our own NVSHMEM-shaped code, not NVSHMEM) | - | "
       << signed_gbps(value_of(*pk_bw4) - value_of(*emu_bw)) << " (" << gbps(value_of(*pk_bw4)) << " vs "
       << gbps(value_of(*emu_bw)) << ") | 4-B block-scope shape |\n";
  os << "\n";
}

// The targets are judged by primitives_targets.cpp (the summary tool passes their table), not here.
void write_targets(std::ostringstream& os, const std::string& targets) {
  os << "## Targets (same run)\n\n";
  if (targets.empty())
    os << "Not judged here: `pkbench_primitives_summary` prints the study's verdicts (the report's).\n\n";
  else
    os << targets
       << "\nThe study's targets (microbench/primitives/primitives_targets.cpp) and rule (microbench/harness/verdict.h), "
          "as the report prints "
          "them: a signal is compared only with library signals of the same protocol and memory ordering, a "
          "dependent load with the library's load at the same placement.\n\n";
}

// Library signals with no pkbench row of their protocol and ordering: listed with their
// figure, no speedup (the targets pass them over).
void write_unmatched_signals(std::ostringstream& os, const PrimitivesRows& t) {
  std::ostringstream unmatched;
  for (const char* op : {"put_signal", "signal"}) {
    std::map<std::string, std::string> where{{"op", op}};
    if (std::string(op) == "put_signal") where["protocol_correct"] = "yes";
    std::map<std::pair<std::string, std::string>, std::vector<const Row*>> lib;
    std::set<std::pair<std::string, std::string>> mine;
    for (const Row* r : library_rows(t, where)) lib[{protocol(*r), col(*r, "ordering")}].push_back(r);
    where["style"] = kStylePk;
    for (const Row* r : all_ok(t, where)) mine.insert({protocol(*r), col(*r, "ordering")});
    for (const auto& [key, rows] : lib) {
      if (mine.count(key)) continue;
      for (const Row* r : rows)
        unmatched << "- " << describe(*r) << " (" << key.first << "): " << ns(value_of(*r))
                  << "; no pkbench row of the same protocol and ordering, so no speedup is stated (its ordering: "
                  << col(*r, "ordering_detail") << ").\n";
    }
  }
  if (!unmatched.str().empty()) os << "Library signals with no like-for-like pkbench row:\n\n" << unmatched.str() << "\n";
}

// A protocol's own advantage, PK rows only: the fastest correct LL signal against the fastest
// correct data-then-flag one.
void write_protocol_advantage(std::ostringstream& os, const PrimitivesRows& t) {
  const Row* dtf = best(pk_correct_put_signals(t, kProtocolDataThenFlag), true);
  const Row* l = best(pk_correct_put_signals(t, kProtocolLL), true);
  if (l && dtf)
    os << "The LL protocol's own advantage (pkbench rows only, not a library comparison): 16 B with the flag in "
          "every data word, "
       << ns(value_of(*l)) << " one-way, against data then a flag (" << col(*dtf, "ordering") << ") "
       << ns(value_of(*dtf)) << ": " << ratio(value_of(*dtf) / value_of(*l))
       << " from the protocol (it doubles the bytes moved: 32 B for 16 B of data).\n\n";
}

void write_gets(std::ostringstream& os, const PrimitivesRows& t) {
  os << "## Get latency (dependent chain, one thread)\n\n"
     << "| placement | memory | style | ordering | call | latency | p10 - p90 |\n|---|---|---|---|---|---|---|\n";
  for (const Row* r : all_ok(t, {{"op", "get"}}))
    os << "| " << col(*r, "placement") << " | " << col(*r, "memory") << " | " << col(*r, "style") << " | "
       << col(*r, "ordering") << " | " << col(*r, "call") << " | " << ns(value_of(*r)) << " | "
       << (col(*r, "p10_ns").empty() ? "-" : col(*r, "p10_ns") + " - " + col(*r, "p90_ns")) << " |\n";
  os << "\nSame memory, same chain, library call against PK access (what the call itself costs per hop):\n\n"
        "| placement | memory | library call | PK weak load | library - PK |\n|---|---|---|---|---|\n";
  for (const char* placement : {"peer_l2_resident", "peer_l2_miss"})
    for (const auto& [style, memory] : {std::pair<const char*, const char*>{kStyleNvshmem, "nvshmem_heap"},
                                        std::pair<const char*, const char*>{kStyleNcclDev, "nccl_window"}}) {
      const double lib = val(find_ok(t, {{"op", "get"}, {"style", style}, {"placement", placement}}));
      const double pk = val(find_ok(t, {{"op", "get"}, {"style", kStylePk}, {"placement", placement}, {"memory", memory},
                                        {"ordering", kOrderWeak}}));
      char d[32] = "-";
      if (std::isfinite(lib - pk)) std::snprintf(d, sizeof d, "%+.1f ns", lib - pk);
      os << "| " << placement << " | " << memory << " | " << ns(lib) << " (" << style << ") | " << ns(pk) << " | " << d
         << " |\n";
    }
  os << "\nChains: 128-B slots in a full-period pseudo-random order, fewer hops than slots (no line is read "
        "twice, so L1 never serves a hop); `l2_resident` = 4 MiB built and then read once by its owner, so that every sector is whole in the "
        "owner's L2 (a chain only just written with 8-B stores leaves partial sectors that a remote read fills from "
        "HBM), `l2_miss` = 1 GiB (mostly HBM). `nvbandwidth` = nvbandwidth's own method (2 MiB, 128-B stride in address "
        "order, events around one launch per SM, 1M accesses): it is an L2-resident chain, timed with launch "
        "overhead amortised over ~7,600 accesses per launch, and averaged over SMs instead of taking a median.\n\n";
}

void write_signal_table(std::ostringstream& os, const PrimitivesRows& t) {
  os << "## Signals and their memory ordering (one-way, ping-pong / 2)\n\n"
     << "| op | style | protocol | ordering | call | what it does | enough for data-then-flag | one-way | "
        "data mismatches |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const char* op : {"signal", "put_signal"})
    for (const Row* r : all_ok(t, {{"op", op}}))
      os << "| " << op << " | " << col(*r, "style") << (col(*r, "mode").empty() ? "" : " " + col(*r, "mode")) << " | "
         << protocol(*r) << " | " << col(*r, "ordering") << " | " << (col(*r, "call").empty() ? "-" : col(*r, "call"))
         << " | " << col(*r, "ordering_detail") << " | " << col(*r, "protocol_correct") << " | "
         << ns(value_of(*r)) << " | " << (col(*r, "data_mismatches").empty() ? "-" : col(*r, "data_mismatches"))
         << " |\n";
}

// What release ordering costs, which PK variant is the cheapest correct one, and which library
// signals are faster only because they order less.
void write_ordering_costs(std::ostringstream& os, const PrimitivesRows& t) {
  os << "\n### What release ordering costs on NVLink (PK rows, minus the relaxed row of the same op)\n\n"
     << "| op | relaxed | release_acquire_sys | fence_then_relaxed | atomic (red.release) |\n|---|---|---|---|---|\n";
  // The same protocol in every column (a flag, or data then a flag: never LL).
  auto pk_signal = [&](const char* op, const char* ordering) -> const Row* {
    for (const Row* r : all_ok(t, {{"op", op}, {"style", kStylePk}, {"ordering", ordering}}))
      if (protocol(*r) != kProtocolLL) return r;
    return nullptr;
  };
  for (const char* op : {"signal", "put_signal"}) {
    const double rel = val(pk_signal(op, kOrderRelaxed));
    os << "| " << op << " | " << ns(rel);
    for (const char* o : {kOrderReleaseAcquire, kOrderFenceThenRelaxed, kOrderAtomic}) {
      const double v = val(pk_signal(op, o));
      char b[32];
      std::snprintf(b, sizeof b, " (%+.0f ns)", v - rel);
      os << " | " << ns(v) << (std::isfinite(v - rel) ? b : "");
    }
    os << " |\n";
  }
  const Row* cheapest = best(pk_correct_put_signals(t, kProtocolDataThenFlag), true);
  os << "\nA producer that writes data and then a flag needs the data ordered before the flag (a release store or "
        "reduction, or a fence before a relaxed store), and the consumer needs its data loads ordered after the "
        "flag load (an acquire load, or a fence after a relaxed poll). `relaxed` orders neither: it can deliver "
        "the flag before the data, and a run that saw no stale data proves nothing. Cheapest correct PK variant "
        "of data then a flag measured here: "
     << (cheapest ? col(*cheapest, "ordering") + " (" + ns(value_of(*cheapest)) + " one-way)" : std::string("-"))
     << ".\n\n";
  const Row* pk_fast = best(all_ok(t, {{"op", "signal"}, {"style", kStylePk}, {"protocol_correct", "yes"}}), true);
  for (const Row* r : library_rows(t, {{"op", "signal"}, {"protocol_correct", "no"}}))
    if (pk_fast && value_of(*r) < value_of(*pk_fast))
      os << "- " << describe(*r) << " (" << ns(value_of(*r)) << ") is faster than PK's fastest ordered signal ("
         << ns(value_of(*pk_fast)) << ", " << col(*pk_fast, "ordering")
         << ") only because it orders less: it issues no fence before its signal. Compare it with PK's relaxed row.\n";
  os << "\n";
}

void write_completion_and_barriers(std::ostringstream& os, const PrimitivesRows& t) {
  os << "## Completion: one 4-B remote store, then quiet / fence\n\n| style | store alone | + quiet | + fence | quiet cost | "
        "fence cost |\n|---|---|---|---|---|---|\n";
  for (const char* st : {kStylePk, kStyleNvshmem}) {
    const double s0 = val(find_ok(t, {{"op", "store"}, {"style", st}}));
    const double q = val(find_ok(t, {{"op", "quiet"}, {"style", st}}));
    const double f = val(find_ok(t, {{"op", "fence"}, {"style", st}}));
    os << "| " << st << " | " << ns(s0) << " | " << ns(q) << " | " << ns(f) << " | " << ns(q - s0) << " | " << ns(f - s0)
       << " |\n";
  }
  os << "\nPK's quiet is fence.sc.sys (what nvshmem_quiet issues on NVLink), its fence fence.acq_rel.sys (nvshmem_fence "
        "also issues fence.sc.sys on NVLink).\n\n";
  os << "## Barrier across GPUs\n\n| style | call | ordering | latency |\n|---|---|---|---|\n";
  for (const Row* r : all_ok(t, {{"op", "barrier"}}))
    os << "| " << col(*r, "style") << " | " << col(*r, "call") << " | " << col(*r, "ordering") << " | "
       << ns(value_of(*r)) << " |\n";
  os << "\n";
}

void write_bulk(std::ostringstream& os, const PrimitivesRows& t) {
  std::set<uint64_t> sizes;
  for (const Row* r : all_ok(t, {{"op", "bulk_put"}})) sizes.insert(std::stoull(col(*r, "message_bytes")));
  if (sizes.empty()) return;
  struct C {
    const char* head;
    std::map<std::string, std::string> where;
  };
  const std::vector<C> cols = {
      {"nvshmem warp", {{"style", kStyleNvshmem}, {"scope", "warp"}, {"mode", "nosignal"}}},
      {"nvshmem warp+sig", {{"style", kStyleNvshmem}, {"scope", "warp"}, {"mode", "signal"}}},
      {"nvshmem block", {{"style", kStyleNvshmem}, {"scope", "block"}, {"mode", "nosignal"}}},
      {"nvshmem block+sig", {{"style", kStyleNvshmem}, {"scope", "block"}, {"mode", "signal"}}},
      {"pk TMA", {{"style", kStylePk}, {"mechanism", "tma"}}},
      {"pk reg block", {{"style", kStylePk}, {"mechanism", "register"}, {"scope", "block"}, {"mode", "nosignal"}}},
      {"pk reg warp", {{"style", kStylePk}, {"mechanism", "register"}, {"scope", "warp"}, {"mode", "nosignal"}}},
      {"pk reg warp+sig", {{"style", kStylePk}, {"scope", "warp"}, {"mode", "signal"}}},
      {"pk reg block+sig", {{"style", kStylePk}, {"scope", "block"}, {"mode", "signal"}}}};
  os << "## Bulk put bandwidth vs message size (GB/s per direction, 64 MiB per pass)\n\n| message |";
  for (const C& c : cols) os << " " << c.head << " |";
  os << "\n|---|";
  for (size_t i = 0; i < cols.size(); ++i) os << "---|";
  os << "\n";
  for (uint64_t m : sizes) {
    os << "| " << m << " B |";
    for (const C& c : cols) {
      auto w = c.where;
      w["op"] = "bulk_put";
      w["message_bytes"] = std::to_string(m);
      os << " " << gbps(val(find_ok(t, w))) << " |";
    }
    os << "\n";
  }
  os << "\n";
}

// What did not run, and what the ordering labels mean.
void write_footer(std::ostringstream& os, const PrimitivesRows& t) {
  std::ostringstream missing;
  for (const Row& r : t.rows)
    if (col(r, "status") != "ok")
      missing << "- " << describe(r) << ": " << col(r, "status") << (col(r, "error").empty() ? "" : ": " + col(r, "error"))
              << "\n";
  if (!missing.str().empty()) os << "## Rows not measured\n\n" << missing.str() << "\n";
  os << "## Ordering labels\n\n`relaxed`: volatile/relaxed store and poll, no fence. `release_acquire_sys`: "
        "st.release.sys / ld.acquire.sys. `fence_then_relaxed`: fence.acq_rel.sys before a relaxed store, after a "
        "relaxed poll. `atomic`: a red/atom (with release where stated). `library-defined`: the library call's own "
        "ordering, spelt out in ordering_detail. `weak`: plain data loads/stores.\n";
}

}  // namespace

std::string summary_markdown(const PrimitivesRows& t, const std::string& targets) {
  std::ostringstream os;
  write_header(os, t);
  // The put tables come later, but the paper's numbers are judged on their comparisons.
  std::ostringstream puts;
  PutPairs pairs;
  put_tables(puts, t, &pairs);
  write_paper_numbers(os, t, pairs);
  write_targets(os, targets);
  write_unmatched_signals(os, t);
  write_protocol_advantage(os, t);
  os << "## Element-wise put\n\n" << puts.str();
  for (auto section : {write_gets, write_signal_table, write_ordering_costs, write_completion_and_barriers, write_bulk,
                       write_footer})
    section(os, t);
  return os.str();
}

}  // namespace pk::prim
