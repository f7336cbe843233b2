#include "microbench/seqpar/seqpar_summary.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/seqpar/seqpar_problem.h"

namespace pk::seqpar {

RingData read_ring_csv(const std::string& path) {
  using C = ColumnType;
  const std::vector<Field> fields = {{"impl", C::text},          {"status", C::text},          {"verified", C::text},
                                     {"peer_mode", C::text},     {"seq_per_rank", C::integer}, {"heads", C::integer},
                                     {"ranks", C::integer},      {"sms", C::integer},          {"step_us_median", C::number},
                                     {"op_us_median", C::number}, {"link_bytes_per_useful", C::number},
                                     {"link_bytes_per_useful_nvml", C::number, false}};
  ReadOptions o;
  o.study = "seqpar";
  const CsvTable t = CsvTable::read(path, fields, o);
  RingData d;
  for (size_t i = 0; i < t.rows(); ++i) {
    RingRow r;
    r.impl = std::string(t.text(i, "impl"));
    r.status = std::string(t.text(i, "status"));
    r.verified = std::string(t.text(i, "verified"));
    r.peer_mode = std::string(t.text(i, "peer_mode"));
    r.seq = static_cast<int>(t.integer(i, "seq_per_rank", 0));
    r.heads = static_cast<int>(t.integer(i, "heads", 0));
    r.ranks = static_cast<int>(t.integer(i, "ranks", 0));
    r.sms = static_cast<int>(t.integer(i, "sms", 0));
    r.step_us = t.number(i, "step_us_median", 0);
    r.op_us = t.number(i, "op_us_median", 0);
    r.link_per_useful = t.number(i, "link_bytes_per_useful", 0);
    r.link_nvml = t.number(i, "link_bytes_per_useful_nvml", -1);
    d.virtual_ranks |= r.peer_mode == "virtual";
    d.rows.push_back(std::move(r));
  }
  return d;
}

double RingShapeResult::hidden() const {
  if (copy_us <= 0 || compute_us <= 0 || best_us <= 0) return 0;
  return 1 - std::max(0.0, best_us - compute_us) / copy_us;
}
bool RingShapeResult::compute_bound() const {
  return ranks > 1 && compute_us > 0 && copy_us > 0 && compute_us / ranks >= copy_us / (ranks - 1);
}

std::vector<RingShapeResult> ring_results(const RingData& d) {
  std::map<std::tuple<int, int, int>, RingShapeResult> by;
  for (const RingRow& r : d.rows) {
    if (!r.ok()) continue;
    RingShapeResult& s = by[{r.ranks, r.heads, r.seq}];
    s.ranks = r.ranks;
    s.heads = r.heads;
    s.seq = r.seq;
    if (r.impl == "compute_only") s.compute_us = r.op_us;
    else if (r.impl == "copy_only") s.copy_us = r.op_us;
    else {
      auto it = s.pass_us.find(r.impl);
      if (it == s.pass_us.end() || r.op_us < it->second) {
        s.pass_us[r.impl] = r.op_us;
        if (r.impl == "inter_sm") {
          s.best_inter_sms = r.sms;
          s.inter_link_nvml = r.link_nvml;
        }
      }
      if (r.impl == "intra_sm") {
        s.intra_link_per_useful = r.link_per_useful;
        s.intra_link_nvml = r.link_nvml;
      }
    }
  }
  std::vector<RingShapeResult> out;
  for (auto& [k, s] : by) {
    for (const auto& [impl, us] : s.pass_us)
      if (s.best.empty() || us < s.best_us) {
        s.best = impl;
        s.best_us = us;
      }
    out.push_back(s);
  }
  return out;
}

RingChoice choose_seqpar(const std::vector<RingShapeResult>& table, int seq, int heads, int ranks) {
  const RingShapeResult* pick = nullptr;
  double dist = 0;
  for (const RingShapeResult& s : table) {
    if (s.ranks != ranks || s.heads != heads || s.best.empty()) continue;
    const double d = std::fabs(std::log2(double(s.seq)) - std::log2(double(std::max(1, seq))));
    if (!pick || d < dist - 1e-12 || (std::fabs(d - dist) <= 1e-12 && s.seq < pick->seq)) {
      pick = &s;
      dist = d;
    }
  }
  if (!pick) return {};
  return {pick->best, pick->best == "inter_sm" ? pick->best_inter_sms : 0};
}

std::string tuning_csv(const std::vector<RingShapeResult>& r) {
  std::ostringstream o;
  o << "ranks,heads,seq_per_rank,schedule,sms,pass_us,compute_us,copy_us,hidden_fraction\n";
  for (const RingShapeResult& s : r) {
    if (s.best.empty()) continue;
    o << s.ranks << ',' << s.heads << ',' << s.seq << ',' << s.best << ',' << (s.best == "inter_sm" ? s.best_inter_sms : 0)
      << ',' << fmt_num(s.best_us) << ',' << fmt_num(s.compute_us) << ',' << fmt_num(s.copy_us) << ','
      << fmt_num(s.hidden(), 4) << '\n';
  }
  return o.str();
}

std::vector<UlyssesPoint> read_ulysses(const std::vector<std::string>& paths) {
  using C = ColumnType;
  const std::vector<Field> fields = {{"collective", C::text}, {"impl", C::text},      {"family", C::text},
                                     {"launch_mode", C::text}, {"status", C::text},   {"verified", C::text},
                                     {"bytes", C::integer},    {"gpus", C::integer},  {"time_us_nccltests", C::number}};
  std::map<std::tuple<std::string, uint64_t, std::string, int>, UlyssesPoint> by;
  for (const std::string& path : paths) {
    ReadOptions o;
    o.study = "collectives";
    const CsvTable t = CsvTable::read(path, fields, o);
    for (size_t i = 0; i < t.rows(); ++i) {
      const std::string coll(t.text(i, "collective"));
      if (coll != "all_to_all_4d" && coll != "all_gather_cols" && coll != "reduce_scatter_cols") continue;
      if (std::string(t.text(i, "status")) != "ok" || std::string(t.text(i, "verified")) != "yes") continue;
      const double us = t.number(i, "time_us_nccltests", 0);
      if (us <= 0) continue;
      const uint64_t bytes = static_cast<uint64_t>(t.integer(i, "bytes", 0));
      const std::string mode(t.text(i, "launch_mode"));
      const int gpus = static_cast<int>(t.integer(i, "gpus", 0));
      UlyssesPoint& p = by[{coll, bytes, mode, gpus}];
      p.collective = coll;
      p.bytes = bytes;
      p.mode = mode;
      p.gpus = gpus;
      const std::string family(t.text(i, "family")), impl(t.text(i, "impl"));
      if (family == "pk") {
        if (p.ours_us == 0 || us < p.ours_us) {
          p.ours_us = us;
          p.ours_impl = impl;
        }
      } else if (impl == "nccl") {
        p.nccl_us = us;
      }
    }
  }
  std::vector<UlyssesPoint> out;
  for (auto& [k, p] : by)
    if (p.ours_us > 0 && p.nccl_us > 0) out.push_back(p);
  return out;
}

std::vector<Target> seqpar_targets(const std::vector<RingShapeResult>& ring, const std::vector<UlyssesPoint>& u) {
  std::vector<Target> t;
  // Ulysses: ours against NCCL + reshape, the nccl-tests method.
  {
    Target a{"ulysses_every_size", "4-D all-to-all and column all-gather / reduce-scatter: NCCL + reshape over ours, every size",
             ">= 1.3x", "", "not measured"};
    Target b{"ulysses_largest", "the same at the largest size of each collective, mode and GPU count", ">= 1.1x", "", "not measured"};
    if (!u.empty()) {
      double lo = 1e30, lo_big = 1e30;
      std::string where, where_big;
      std::map<std::tuple<std::string, std::string, int>, const UlyssesPoint*> largest;
      for (const UlyssesPoint& p : u) {
        const double r = p.nccl_us / p.ours_us;
        if (r < lo) {
          lo = r;
          where = p.collective + " " + std::to_string(p.bytes) + " B " + p.mode + " on " + std::to_string(p.gpus);
        }
        auto& l = largest[{p.collective, p.mode, p.gpus}];
        if (!l || p.bytes > l->bytes) l = &p;
      }
      for (const auto& [k, p] : largest) {
        const double r = p->nccl_us / p->ours_us;
        if (r < lo_big) {
          lo_big = r;
          where_big = p->collective + " " + std::to_string(p->bytes) + " B " + p->mode + " on " + std::to_string(p->gpus);
        }
      }
      a.measured = "lowest " + fmt_num(lo, 3) + "x (" + where + ")";
      a.verdict = lo >= 1.3 ? "met" : "missed";
      b.measured = "lowest " + fmt_num(lo_big, 3) + "x (" + where_big + ")";
      b.verdict = lo_big >= 1.1 ? "met" : "missed";
    }
    t.push_back(a);
    t.push_back(b);
  }
  // The ring.
  Target hide{"ring_hides_transfer", "best schedule hides the transfer where a step's compute takes at least its transfer",
              ">= 95 %", "", "not measured"};
  Target nccl{"ring_beats_nccl_side", "best of ours (inter_sm, intra_sm) faster than NCCL on a side stream, every S", "> 1x", "",
              "not measured"};
  Target cross{"ring_crossover", "smallest S per rank where inter_sm beats intra_sm (NVLink bytes per useful byte of intra_sm there)",
               "stated", "", "not measured"};
  double min_hidden = 2, min_speed = 1e30;
  std::string hw, sw, cw;
  for (const RingShapeResult& s : ring) {
    const std::string at = "N=" + std::to_string(s.ranks) + " H=" + std::to_string(s.heads) + " S=" + std::to_string(s.seq);
    if (s.compute_bound() && s.copy_us > 0 && s.hidden() < min_hidden) {
      min_hidden = s.hidden();
      hw = at + ", " + s.best;
    }
    auto ns = s.pass_us.find("nccl_side");
    double ours = 0;
    for (const char* i : {"inter_sm", "intra_sm"})
      if (auto it = s.pass_us.find(i); it != s.pass_us.end() && (ours == 0 || it->second < ours)) ours = it->second;
    if (ns != s.pass_us.end() && ours > 0 && ns->second / ours < min_speed) {
      min_speed = ns->second / ours;
      sw = at;
    }
  }
  if (min_hidden <= 1) {
    hide.measured = "lowest " + fmt_num(100 * min_hidden, 3) + " % (" + hw + ")";
    hide.verdict = min_hidden >= 0.95 ? "met" : "missed";
  }
  if (min_speed < 1e29) {
    nccl.measured = "lowest " + fmt_num(min_speed, 3) + "x (" + sw + ")";
    nccl.verdict = min_speed > 1 ? "met" : "missed";
  }
  std::map<std::pair<int, int>, const RingShapeResult*> first;
  std::set<std::pair<int, int>> compared;
  for (const RingShapeResult& s : ring) {
    auto a = s.pass_us.find("inter_sm"), b = s.pass_us.find("intra_sm");
    if (a == s.pass_us.end() || b == s.pass_us.end()) continue;
    compared.insert({s.ranks, s.heads});
    auto& f = first[{s.ranks, s.heads}];
    if (a->second < b->second && (!f || s.seq < f->seq)) f = &s;
  }
  for (const auto& key : compared) {
    auto it = first.find(key);
    cross.measured += (cross.measured.empty() ? "" : "; ") + std::string("N=") + std::to_string(key.first) + " H=" +
                      std::to_string(key.second) + ": " +
                      (it == first.end() || !it->second ? std::string("intra_sm never slower")
                                                        : "S=" + std::to_string(it->second->seq) + " (intra_sm: " +
                                                              fmt_num(it->second->intra_link_per_useful) + " link bytes per useful byte computed" +
                                                              (it->second->intra_link_nvml >= 0
                                                                   ? ", " + fmt_num(it->second->intra_link_nvml, 4) + " by NVML; inter_sm " +
                                                                         fmt_num(it->second->inter_link_nvml, 4) + " by NVML"
                                                                   : std::string(", NVML's counters not read")) + ")");
  }
  if (!compared.empty()) cross.verdict = "met";
  t.push_back(hide);
  t.push_back(nccl);
  t.push_back(cross);
  return t;
}

std::string summary_markdown(const RingData& d, const std::vector<RingShapeResult>& ring, const std::vector<UlyssesPoint>& u) {
  std::ostringstream o;
  o << "# Sequence parallelism\n\n";
  if (d.virtual_ranks) o << "Virtual ranks on one GPU: the ring's transfers cross HBM, not NVLink.\n\n";
  o << "## Ring KV pass (a pass = N steps; microseconds)\n\n"
    << "| N | H | S per rank | compute alone | transfer alone | sequential | nccl_side | inter_sm (best sms) | intra_sm | best | "
       "exposed | hidden |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto cell = [](const RingShapeResult& s, const char* i) {
    auto it = s.pass_us.find(i);
    return it == s.pass_us.end() ? std::string("-") : fmt_num(it->second, 4);
  };
  for (const RingShapeResult& s : ring) {
    o << "| " << s.ranks << " | " << s.heads << " | " << s.seq << " | " << fmt_num(s.compute_us, 4) << " | "
      << fmt_num(s.copy_us, 4) << " | " << cell(s, "sequential") << " | " << cell(s, "nccl_side") << " | " << cell(s, "inter_sm")
      << (s.pass_us.count("inter_sm") ? " (" + std::to_string(s.best_inter_sms) + ")" : "") << " | " << cell(s, "intra_sm")
      << " | " << (s.best.empty() ? "-" : s.best) << " | "
      << (s.best.empty() || s.compute_us <= 0 ? "-" : fmt_num(std::max(0.0, s.best_us - s.compute_us), 4)) << " | "
      << (s.copy_us > 0 && !s.best.empty() ? fmt_num(100 * s.hidden(), 3) + " %" : "-") << " |\n";
  }
  o << "\n## The far side: link bytes per useful byte (intra_sm reads the peer's block once per Q tile; inter_sm stages "
       "it once)\n\n| N | H | S per rank | intra_sm computed | intra_sm NVML | inter_sm computed | inter_sm NVML "
       "|\n|---|---|---|---|---|---|---|\n";
  auto nv = [](double v) { return v < 0 ? std::string("not read") : fmt_num(v, 4); };
  for (const RingShapeResult& s : ring)
    if (s.pass_us.count("intra_sm") || s.pass_us.count("inter_sm"))
      o << "| " << s.ranks << " | " << s.heads << " | " << s.seq << " | " << fmt_num(link_bytes_per_useful("intra_sm", s.seq))
        << " | " << nv(s.intra_link_nvml) << " | 1 | " << nv(s.inter_link_nvml) << " |\n";
  if (!u.empty()) {
    o << "\n## Ulysses collectives (nccl-tests method, microseconds)\n\n| collective | bytes | mode | GPUs | ours | NCCL + "
         "reshape | speedup |\n|---|---|---|---|---|---|---|\n";
    for (const UlyssesPoint& p : u)
      o << "| " << p.collective << " | " << p.bytes << " | " << p.mode << " | " << p.gpus << " | " << fmt_num(p.ours_us, 4)
        << " (" << p.ours_impl << ") | " << fmt_num(p.nccl_us, 4) << " | " << fmt_num(p.nccl_us / p.ours_us, 3) << "x |\n";
  }
  o << "\n## Targets\n\n| target | what | threshold | measured | verdict |\n|---|---|---|---|---|\n";
  for (const Target& t : seqpar_targets(ring, u))
    o << "| " << t.id << " | " << t.what << " | " << t.threshold << " | " << (t.measured.empty() ? "-" : t.measured) << " | "
      << t.verdict << " |\n";
  return o.str();
}

}  // namespace pk::seqpar
