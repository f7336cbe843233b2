#include "microbench/ep/ep_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "microbench/harness/tidy_csv.h"

namespace pk::ep {

EpData read_ep_csv(const std::string& path) {
  using C = ColumnType;
  const std::vector<Field> fields = {
      {"op", C::text},          {"impl", C::text},         {"family", C::text},       {"routing", C::text},
      {"status", C::text},      {"verified", C::text},     {"peer_mode", C::text},    {"ref_tool", C::text, false},
      {"tokens", C::integer},   {"hidden", C::integer},    {"experts", C::integer},   {"topk", C::integer},
      {"ranks", C::integer},    {"sms", C::integer},       {"ref_sms", C::integer, false},
      {"dispatch_us_median", C::number}, {"dispatch_us_p10", C::number}, {"dispatch_us_p90", C::number},
      {"combine_us_median", C::number},  {"combine_us_p10", C::number},  {"combine_us_p90", C::number},
      {"total_us_median", C::number},    {"dispatch_gbps_per_rank", C::number}, {"combine_gbps_per_rank", C::number},
      {"ref_dispatch_us", C::number, false}, {"ref_combine_us", C::number, false}, {"ref_time_us", C::number, false}};
  ReadOptions o;
  o.study = "ep";
  const CsvTable t = CsvTable::read(path, fields, o);
  EpData d;
  d.path = path;
  d.machine = t.machine();
  for (size_t i = 0; i < t.rows(); ++i) {
    EpRow r;
    auto s = [&](const char* c) { return std::string(t.text(i, c)); };
    auto n = [&](const char* c) { return t.number(i, c, 0); };
    auto k = [&](const char* c) { return static_cast<int>(t.integer(i, c, 0)); };
    r.op = s("op");
    r.impl = s("impl");
    r.family = s("family");
    r.routing = s("routing");
    r.status = s("status");
    r.verified = s("verified");
    r.peer_mode = s("peer_mode");
    r.ref_tool = s("ref_tool");
    r.tokens = k("tokens");
    r.hidden = k("hidden");
    r.experts = k("experts");
    r.topk = k("topk");
    r.ranks = k("ranks");
    r.sms = k("sms");
    r.ref_sms = k("ref_sms");
    r.dispatch_us = n("dispatch_us_median");
    r.dispatch_p10 = n("dispatch_us_p10");
    r.dispatch_p90 = n("dispatch_us_p90");
    r.combine_us = n("combine_us_median");
    r.combine_p10 = n("combine_us_p10");
    r.combine_p90 = n("combine_us_p90");
    r.total_us = n("total_us_median");
    r.dispatch_gbps = n("dispatch_gbps_per_rank");
    r.combine_gbps = n("combine_gbps_per_rank");
    r.ref_dispatch_us = n("ref_dispatch_us");
    r.ref_combine_us = n("ref_combine_us");
    r.ref_time_us = n("ref_time_us");
    d.virtual_ranks |= r.peer_mode == "virtual";
    d.rows.push_back(std::move(r));
  }
  return d;
}

const EpRow* best_row(const EpData& d, const std::string& op, const std::string& impl, const std::string& routing, int tokens,
                      int max_sms) {
  const EpRow* best = nullptr;
  for (const EpRow& r : d.rows) {
    if (!r.ok() || r.op != op || r.impl != impl || r.routing != routing || r.tokens != tokens) continue;
    if (max_sms > 0 && r.sms > max_sms) continue;
    if (!best || r.total_us < best->total_us || (r.total_us == best->total_us && r.sms < best->sms)) best = &r;
  }
  return best;
}

const EpRow* best_ours(const EpData& d, const std::string& op, const std::string& routing, int tokens,
                       const std::vector<std::string>& impls) {
  const EpRow* best = nullptr;
  for (const std::string& i : impls)
    if (const EpRow* r = best_row(d, op, i, routing, tokens); r && (!best || r->total_us < best->total_us)) best = r;
  return best;
}

std::vector<int> tokens_of(const EpData& d, const std::string& op, const std::string& routing) {
  std::set<int> s;
  for (const EpRow& r : d.rows)
    if (r.ok() && r.op == op && (routing.empty() || r.routing == routing)) s.insert(r.tokens);
  return {s.begin(), s.end()};
}

std::vector<std::string> routings_of(const EpData& d, const std::string& op) {
  std::vector<std::string> v;
  for (const EpRow& r : d.rows)
    if (r.ok() && r.op == op && std::find(v.begin(), v.end(), r.routing) == v.end()) v.push_back(r.routing);
  return v;
}

std::vector<SmSweep> sm_sweeps(const EpData& d) {
  std::map<std::tuple<std::string, std::string, std::string, int>, std::vector<const EpRow*>> groups;
  std::vector<std::tuple<std::string, std::string, std::string, int>> order;
  for (const EpRow& r : d.rows) {
    if (!r.ok() || r.sms <= 0) continue;
    const auto key = std::make_tuple(r.op, r.impl, r.routing, r.tokens);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<SmSweep> out;
  for (const auto& key : order) {
    const auto& rows = groups[key];
    SmSweep s{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key)};
    const EpRow* best = *std::min_element(rows.begin(), rows.end(), [](const EpRow* a, const EpRow* b) {
      return a->total_us < b->total_us || (a->total_us == b->total_us && a->sms < b->sms);
    });
    s.best_us = best->total_us;
    s.best_sms = best->sms;
    s.fewest_sms_90 = best->sms;
    for (const EpRow* r : rows)
      if (r->total_us <= best->total_us / kSweepFraction) s.fewest_sms_90 = std::min(s.fewest_sms_90, r->sms);
    std::set<int> sms;
    for (const EpRow* r : rows) sms.insert(r->sms);
    s.sms_measured = static_cast<int>(sms.size());
    out.push_back(s);
  }
  return out;
}

namespace {

std::string num(double v, int digits = 3) {
  if (v <= 0) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}
std::string ratio(double v) {
  if (v <= 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.2fx", v);
  return b;
}

const std::vector<std::string> kOursComm = {"ll", "ht"};

// Over the points of `routing` with T in [lo, hi]: the smallest speedup of our best over
// NCCL (dispatch + combine), and where.
struct Worst {
  double value = 0;
  std::string where;
  int points = 0;
};
Worst worst_vs_nccl(const EpData& d, const std::string& routing, int lo, int hi) {
  Worst w;
  for (int t : tokens_of(d, "dispatch_combine", routing)) {
    if (t < lo || t > hi) continue;
    const EpRow* ours = best_ours(d, "dispatch_combine", routing, t, kOursComm);
    const EpRow* base = best_row(d, "dispatch_combine", "nccl", routing, t);
    if (!ours || !base) continue;
    const double s = base->total_us / ours->total_us;
    ++w.points;
    if (w.points == 1 || s < w.value) {
      w.value = s;
      w.where = "T=" + std::to_string(t) + ": " + ours->impl + " at " + std::to_string(ours->sms) + " SMs " + num(ours->total_us) +
                " us vs NCCL " + num(base->total_us) + " us";
    }
  }
  return w;
}

EpTarget judged(std::string id, std::string what, double threshold, const Worst& w) {
  EpTarget t{std::move(id), std::move(what), ">= " + ratio(threshold), "", "not measured"};
  if (w.points == 0) return t;
  t.measured = ratio(w.value) + " (worst of " + std::to_string(w.points) + " points; " + w.where + ")";
  t.verdict = w.value >= threshold ? "met" : "missed";
  return t;
}

}  // namespace

std::vector<EpTarget> ep_targets(const EpData& d) {
  std::vector<EpTarget> out;
  for (const std::string routing : {"uniform", "zipf"}) {
    out.push_back(judged("ep.vs_nccl_small." + routing, "dispatch + combine, best of ours / NCCL at T <= 512, " + routing, 1.5,
                         worst_vs_nccl(d, routing, 1, 512)));
    out.push_back(judged("ep.vs_nccl_large." + routing, "dispatch + combine, best of ours / NCCL at T >= 4096, " + routing,
                         1.2, worst_vs_nccl(d, routing, 4096, 1 << 30)));
  }
  // DeepEP (its figures merged by pkbench_ep_ref): ours with no more SMs than it used.
  auto vs_ref = [&](const std::string& impl, int lo, int hi) {
    Worst w;
    for (const EpRow& ref : d.rows) {
      if (!ref.ok() || ref.impl != impl || ref.ref_time_us <= 0 || ref.tokens < lo || ref.tokens > hi) continue;
      const EpRow* ours = best_row(d, "dispatch_combine", impl, ref.routing, ref.tokens, ref.ref_sms);
      if (!ours) continue;
      const double s = ref.ref_time_us / ours->total_us;
      if (w.points++ == 0 || s < w.value) {
        w.value = s;
        w.where = "T=" + std::to_string(ref.tokens) + ": " + impl + " at " + std::to_string(ours->sms) + " SMs " +
                  num(ours->total_us) + " us vs " + ref.ref_tool + " " + num(ref.ref_time_us) + " us";
      }
    }
    // Each (routing, T) once: rows of one point share the reference.
    return w;
  };
  out.push_back(judged("ep.vs_deepep_normal", "dispatch + combine, ht / DeepEP intranode normal mode at T >= 4096, no more SMs",
                       1.0, vs_ref("ht", 4096, 1 << 30)));
  out.push_back(judged("ep.vs_deepep_ll", "dispatch + combine, ll / DeepEP low-latency mode at T <= 128, no more SMs", 1.0,
                       vs_ref("ll", 1, 128)));
  Worst ov;
  for (const std::string& routing : routings_of(d, "dispatch_gemm"))
    for (int t : tokens_of(d, "dispatch_gemm", routing)) {
      const EpRow* o = best_row(d, "dispatch_gemm", "overlap", routing, t);
      const EpRow* b = best_row(d, "dispatch_gemm", "ht_then_gemm", routing, t);
      if (!o || !b) continue;
      const double s = b->total_us / o->total_us;
      if (ov.points++ == 0 || s < ov.value) {
        ov.value = s;
        ov.where = routing + " T=" + std::to_string(t) + ": overlap " + num(o->total_us) + " us (" + std::to_string(o->sms) +
                   " comm SMs) vs " + num(b->total_us) + " us";
      }
    }
  out.push_back(judged("ep.overlap_vs_sequential", "dispatch overlapped with the grouped GEMM / ht dispatch then GEMM, every T",
                       1.15, ov));
  int errors = 0, ok = 0;
  for (const EpRow& r : d.rows) {
    if (r.status == "error") ++errors;
    if (r.ok()) ++ok;
  }
  EpTarget v{"ep.verified", "every row that ran verified (a wrong token is an error row)", "0 error rows",
             std::to_string(errors) + " error rows, " + std::to_string(ok) + " verified", ok + errors ? (errors ? "missed" : "met") : "not measured"};
  out.push_back(v);
  return out;
}

std::string targets_markdown(const std::vector<EpTarget>& t) {
  std::ostringstream os;
  os << "| target | threshold | measured | verdict |\n|---|---|---|---|\n";
  for (const EpTarget& x : t)
    os << "| " << x.what << " (`" << x.id << "`) | " << x.threshold << " | " << (x.measured.empty() ? "-" : x.measured) << " | **"
       << x.verdict << "** |\n";
  return os.str();
}

std::string summary_markdown(const EpData& d) {
  std::ostringstream os;
  const EpRow* any = d.rows.empty() ? nullptr : &d.rows.front();
  os << "# Expert parallelism (ep)\n\n";
  os << "Machine: " << d.machine.describe() << "; " << d.rows.size() << " rows from `" << d.path << "`";
  if (any)
    os << "; H = " << any->hidden << ", E = " << any->experts << ", TopK = " << any->topk << ", " << any->ranks << " ranks";
  os << ".\n";
  if (d.virtual_ranks) os << "\nVirtual ranks on one GPU: the times are HBM's, not NVLink's (correctness and per-SM rates only).\n";
  os << "\nTimes are medians in microseconds of the slowest rank (p10..p90 in the CSV); GB/s per rank counts the token bytes "
        "that crossed a link, each token once per rank. Each implementation at its fastest SM count.\n";

  for (const std::string& routing : routings_of(d, "dispatch_combine")) {
    os << "\n## Dispatch + combine, " << routing << " routing\n\n";
    os << "| T | ll | ht | nccl | best of ours / nccl | ht dispatch GB/s | ht combine GB/s |\n|---:|---|---|---|---:|---:|---:|\n";
    for (int t : tokens_of(d, "dispatch_combine", routing)) {
      auto cell = [&](const std::string& impl) {
        const EpRow* r = best_row(d, "dispatch_combine", impl, routing, t);
        if (!r) return std::string("-");
        return num(r->total_us) + " (" + num(r->dispatch_us) + " + " + num(r->combine_us) + (r->sms ? ", " + std::to_string(r->sms) + " SMs" : "") + ")";
      };
      const EpRow* ours = best_ours(d, "dispatch_combine", routing, t, kOursComm);
      const EpRow* base = best_row(d, "dispatch_combine", "nccl", routing, t);
      const EpRow* ht = best_row(d, "dispatch_combine", "ht", routing, t);
      os << "| " << t << " | " << cell("ll") << " | " << cell("ht") << " | " << cell("nccl") << " | "
         << (ours && base ? ratio(base->total_us / ours->total_us) : "-") << " | " << (ht ? num(ht->dispatch_gbps) : "-") << " | "
         << (ht ? num(ht->combine_gbps) : "-") << " |\n";
    }
  }

  const std::vector<SmSweep> sweeps = sm_sweeps(d);
  if (!sweeps.empty()) {
    os << "\n## SM sweep\n\nThe fewest SMs whose time is within the best / " << kSweepFraction
       << " (90 % of the implementation's best rate; DeepEP's default budget is 24 SMs).\n\n"
       << "| op | impl | routing | T | best us | at SMs | fewest SMs to 90 % | SM counts measured |\n|---|---|---|---:|---:|---:|---:|---:|\n";
    for (const SmSweep& s : sweeps)
      os << "| " << s.op << " | " << s.impl << " | " << s.routing << " | " << s.tokens << " | " << num(s.best_us) << " | " << s.best_sms
         << " | " << s.fewest_sms_90 << " | " << s.sms_measured << " |\n";
  }

  for (const std::string& routing : routings_of(d, "dispatch_gemm")) {
    os << "\n## Dispatch + grouped GEMM (Figure 12), " << routing << " routing\n\n";
    os << "| T | gemm alone | ht then GEMM | nccl then GEMM | overlap (comm SMs) | overlap / ht then GEMM | TFLOP/s overlap |\n"
          "|---:|---:|---:|---:|---|---:|---:|\n";
    for (int t : tokens_of(d, "dispatch_gemm", routing)) {
      const EpRow* g = best_row(d, "dispatch_gemm", "gemm_only", routing, t);
      const EpRow* h = best_row(d, "dispatch_gemm", "ht_then_gemm", routing, t);
      const EpRow* n = best_row(d, "dispatch_gemm", "nccl_then_gemm", routing, t);
      const EpRow* o = best_row(d, "dispatch_gemm", "overlap", routing, t);
      os << "| " << t << " | " << (g ? num(g->total_us) : "-") << " | " << (h ? num(h->total_us) : "-") << " | "
         << (n ? num(n->total_us) : "-") << " | " << (o ? num(o->total_us) + " (" + std::to_string(o->sms) + ")" : "-") << " | "
         << (o && h ? ratio(h->total_us / o->total_us) : "-") << " | - |\n";
    }
  }

  bool refs = false;
  for (const EpRow& r : d.rows) refs |= r.ref_time_us > 0;
  if (refs) {
    os << "\n## DeepEP (reference tool, same shapes)\n\n| impl | routing | T | ours (SMs) | DeepEP (SMs) | tool | DeepEP / ours |\n"
          "|---|---|---:|---|---|---|---:|\n";
    std::set<std::tuple<std::string, std::string, int>> seen;
    for (const EpRow& r : d.rows) {
      if (r.ref_time_us <= 0 || !seen.insert({r.impl, r.routing, r.tokens}).second) continue;
      const EpRow* ours = best_row(d, r.op, r.impl, r.routing, r.tokens, r.ref_sms);
      os << "| " << r.impl << " | " << r.routing << " | " << r.tokens << " | "
         << (ours ? num(ours->total_us) + " (" + std::to_string(ours->sms) + ")" : "-") << " | " << num(r.ref_time_us) << " ("
         << r.ref_sms << ") | " << r.ref_tool << " | " << (ours ? ratio(r.ref_time_us / ours->total_us) : "-") << " |\n";
    }
  }

  os << "\n## Targets\n\n" << targets_markdown(ep_targets(d));
  return os.str();
}

}  // namespace pk::ep
