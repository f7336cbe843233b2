#include "microbench/ep/ep_problem.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/ep/ep_data.cuh"
#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::ep {

namespace {
std::string num(int64_t v) { return std::to_string(v); }
}  // namespace

void check_shape(const EpShape& s) {
  if (s.ranks < 2 || s.ranks > kMaxRanks)
    throw ArgError("ranks: " + num(s.ranks) + ": the study needs 2 to " + num(kMaxRanks) + " ranks");
  if (s.tokens < 1 || s.tokens >= kMaxTokens) throw ArgError("--tokens: " + num(s.tokens) + ": 1 to " + num(kMaxTokens - 1));
  if (s.hidden < 8 || s.hidden % 8 != 0 || s.hidden > 65536)
    throw ArgError("--hidden=" + num(s.hidden) + ": a multiple of 8 (16-B vectors of bf16) up to 65536");
  if (s.experts < 1 || s.experts % s.ranks != 0)
    throw ArgError("--experts=" + num(s.experts) + ": a multiple of the " + num(s.ranks) + " ranks (E/N experts per rank)");
  if (s.experts > kMaxExperts)
    throw ArgError("--experts=" + num(s.experts) + ": at most " + num(kMaxExperts) + " (the count kernels hold E counters in shared memory)");
  if (s.local_experts() > kMaxLocalExperts) throw ArgError("--experts=" + num(s.experts) + ": at most 65535 experts per rank");
  if (s.topk < 1 || s.topk > kMaxTopK || s.topk > s.experts)
    throw ArgError("--topk=" + num(s.topk) + ": 1 to min(--experts, " + num(kMaxTopK) + ")");
}

void check_gemm_shape(const EpShape& s) {
  check_shape(s);
  if (s.hidden % 64 != 0) throw ArgError("--hidden=" + num(s.hidden) + ": the grouped GEMM's K needs a multiple of 64");
  if (s.h_expert < 256 || s.h_expert % 256 != 0)
    throw ArgError("--h-expert=" + num(s.h_expert) + ": the grouped GEMM's N needs a positive multiple of 256");
}

const std::vector<std::string>& routing_names() {
  static const std::vector<std::string> v = {"uniform", "zipf", "no_recv", "one_expert"};
  return v;
}
RoutingKind parse_routing(const std::string& s) {
  const auto& v = routing_names();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == s) return static_cast<RoutingKind>(i);
  throw ArgError("--routings: unknown routing '" + s + "'");
}
std::string routing_name(RoutingKind k) { return routing_names().at(static_cast<size_t>(k)); }
std::string routing_description(RoutingKind k) {
  switch (k) {
    case RoutingKind::uniform: return "TopK distinct experts uniformly at random";
    case RoutingKind::zipf: return "TopK distinct experts, popularity ~ 1/(e+1)^alpha: the low ranks' experts are hot";
    case RoutingKind::no_recv: return "uniform over every expert but the last rank's: that rank receives nothing";
    case RoutingKind::one_expert: return "expert 0 in every token, the others uniform: one expert receives every token";
  }
  return "";
}
void check_routing(RoutingKind k, const EpShape& s) {
  if (k == RoutingKind::no_recv && s.experts - s.local_experts() < s.topk)
    throw ArgError("--routings=no_recv: needs E - E/N >= TopK (" + num(s.experts - s.local_experts()) + " < " + num(s.topk) + ")");
}

namespace {

// A splitmix64 stream.
struct Rng {
  uint64_t state;
  uint64_t next() { return mix64(state += 0x632BE59BD9B4E019ull); }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int below(int n) { return static_cast<int>(next() % uint64_t(n)); }
};

}  // namespace

Routing make_routing(const EpShape& s, RoutingKind kind, const RouterOptions& o, int rank) {
  check_shape(s);
  check_routing(kind, s);
  Rng rng{mix64(o.seed ^ (uint64_t(static_cast<int>(kind)) << 40) ^ (uint64_t(rank) << 32) ^ uint64_t(s.tokens))};
  const int E = s.experts, K = s.topk, El = s.local_experts();
  std::vector<double> cdf;
  if (kind == RoutingKind::zipf) {
    cdf.resize(E);
    double acc = 0;
    for (int e = 0; e < E; ++e) cdf[e] = acc += 1.0 / std::pow(e + 1.0, o.zipf_alpha);
    for (double& c : cdf) c /= acc;
  }
  auto draw = [&]() -> int {
    switch (kind) {
      case RoutingKind::zipf: {
        const double u = rng.uniform();
        const int e = static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        return std::min(e, E - 1);
      }
      case RoutingKind::no_recv: return rng.below(E - El);
      default: return rng.below(E);
    }
  };
  Routing r;
  r.topk.resize(size_t(s.tokens) * K);
  r.w.resize(size_t(s.tokens) * K);
  for (int t = 0; t < s.tokens; ++t) {
    int32_t* ids = &r.topk[size_t(t) * K];
    int have = 0;
    if (kind == RoutingKind::one_expert) ids[have++] = 0;
    while (have < K) {
      const int e = draw();
      if (std::find(ids, ids + have, e) == ids + have) ids[have++] = e;
    }
    float* w = &r.w[size_t(t) * K];
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += w[k] = static_cast<float>(0.1 + 0.9 * rng.uniform());
    for (int k = 0; k < K; ++k) w[k] = static_cast<float>(w[k] / sum);
  }
  return r;
}

int64_t Traffic::max_rows_packed() const {
  return rows_packed.empty() ? 0 : *std::max_element(rows_packed.begin(), rows_packed.end());
}
int64_t Traffic::link_bytes() const { return std::accumulate(link_bytes_from.begin(), link_bytes_from.end(), int64_t(0)); }
int64_t Traffic::tiles(int r, int tiles_n) const {
  const int El = experts / ranks;
  int64_t t = 0;
  for (int j = 0; j < El; ++j) t += row_tiles(expert_count[size_t(r) * El + j]);
  return t * tiles_n;
}

std::vector<int> packed_bases(const std::vector<int>& count) {
  std::vector<int> base(count.size());
  int64_t at = 0;
  for (size_t j = 0; j < count.size(); ++j) {
    base[j] = static_cast<int>(at);
    at += align_rows(count[j]);
  }
  return base;
}

Traffic traffic_of(const EpShape& s, const std::vector<Routing>& all) {
  const int N = s.ranks, E = s.experts, K = s.topk, El = s.local_experts();
  Traffic tr;
  tr.ranks = N;
  tr.experts = E;
  tr.tokens_to.assign(N, std::vector<int>(N, 0));
  tr.expert_from.assign(N, std::vector<int>(E, 0));
  tr.expert_count.assign(E, 0);
  tr.link_bytes_from.assign(N, 0);
  for (int src = 0; src < N; ++src) {
    const Routing& r = all.at(src);
    for (int t = 0; t < s.tokens; ++t) {
      unsigned mask = 0;
      for (int k = 0; k < K; ++k) {
        const int e = r.topk[size_t(t) * K + k];
        ++tr.expert_from[src][e];
        ++tr.expert_count[e];
        mask |= 1u << (e / El);
      }
      for (int d = 0; d < N; ++d)
        if (mask >> d & 1u) {
          ++tr.tokens_to[src][d];
          if (d != src) tr.link_bytes_from[src] += int64_t(s.token_bytes());
        }
    }
  }
  tr.rows_packed.assign(N, 0);
  for (int d = 0; d < N; ++d)
    for (int j = 0; j < El; ++j) tr.rows_packed[d] += align_rows(tr.expert_count[size_t(d) * El + j]);
  tr.max_expert_count = *std::max_element(tr.expert_count.begin(), tr.expert_count.end());
  for (int src = 0; src < N; ++src)
    for (int d = 0; d < N; ++d) tr.max_slots_in = std::max(tr.max_slots_in, tr.tokens_to[src][d]);
  return tr;
}

// ---- points ---------------------------------------------------------------------------

const std::vector<std::string>& op_names() {
  static const std::vector<std::string> v = {"dispatch_combine", "dispatch_gemm"};
  return v;
}
std::string op_name(Op o) { return op_names().at(static_cast<size_t>(o)); }
Op parse_op(const std::string& s) {
  for (size_t i = 0; i < op_names().size(); ++i)
    if (op_names()[i] == s) return static_cast<Op>(i);
  throw ArgError("--ops: unknown operation '" + s + "'");
}

const std::vector<ImplInfo>& impl_infos() {
  static const std::vector<ImplInfo> v = {
#define PK_EP_IMPL(name, op, family, baseline, takes_sms, make, summary) {#name, Op::op, family, baseline, takes_sms, summary},
#include "microbench/ep/ep_list.h"
#undef PK_EP_IMPL
  };
  return v;
}
const ImplInfo& impl_info(const std::string& name) {
  if (const ImplInfo* i = named(impl_infos(), name)) return *i;
  throw ArgError("--impls: unknown implementation '" + name + "'");
}

std::string Point::name() const {
  return "ep/" + op_name(op) + "/" + impl + (sms ? "[sms=" + std::to_string(sms) + "]" : "") + "/" +
         routing_name(routing) + "/T" + std::to_string(tokens);
}

std::vector<Point> build_points(const Grid& g) {
  std::vector<Point> out;
  for (Op op : g.ops)
    for (RoutingKind rk : g.routings)
      for (int t : g.tokens)
        for (const ImplInfo& info : impl_infos()) {
          if (info.op != op || std::find(g.impls.begin(), g.impls.end(), info.name) == g.impls.end()) continue;
          if (info.name == "ll" && t > g.ll_max_tokens) continue;
          const std::vector<int> one_auto = {0};
          for (int sms : info.takes_sms ? g.sms : one_auto) out.push_back(Point{info.name, op, rk, t, sms});
        }
  return out;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = {
      {"default",
       "dispatch + combine (ll, ht, nccl) at T = 128, 1024, 4096, uniform and zipf, 8 / 16 / 32 SMs; dispatch + "
       "GEMM (Figure 12) at T = 4096, uniform",
       {{"dispatch_combine", "ll,ht,nccl", "uniform,zipf", "128,1024,4096", "8,16,32"},
        {"dispatch_gemm", "gemm_only,ht_then_gemm,nccl_then_gemm,overlap", "uniform", "4096", "16,32"}}},
      {"full",
       "the tokens from 128 to 8192 doubling, both routings, the SM sweep 4..64, and Figure 12 from 1024 to 8192",
       {{"dispatch_combine", "ll,ht,nccl", "uniform,zipf", "128:8192", "4,8,16,24,32,48,64"},
        {"dispatch_gemm", "gemm_only,ht_then_gemm,nccl_then_gemm,overlap", "uniform,zipf", "1024:8192", "8,16,24,32"}}},
      {"fig12", "dispatch + grouped GEMM (Figure 12's half MoE layer) from T = 512 to 8192, communication SMs 8..32",
       {{"dispatch_gemm", "gemm_only,ht_then_gemm,nccl_then_gemm,overlap", "uniform", "512:8192", "8,16,24,32"}}},
      {"edge",
       "the edge routings (a rank receives nothing, one expert receives every token) at T = 1, 131, 1001, every "
       "implementation",
       {{"dispatch_combine", "ll,ht,nccl", "no_recv,one_expert", "1,131,1001", "8"},
        {"dispatch_gemm", "gemm_only,ht_then_gemm,nccl_then_gemm,overlap", "no_recv,one_expert", "131,1001", "8"}}},
      {"smoke", "every implementation once at T = 131 (not a multiple of anything), 8 SMs",
       {{"dispatch_combine", "ll,ht,nccl", "uniform", "131", "8"},
        {"dispatch_gemm", "gemm_only,ht_then_gemm,nccl_then_gemm,overlap", "uniform", "131", "8"}}},
  };
  return v;
}

const Preset& preset(const std::string& name) {
  for (const Preset& p : presets())
    if (p.name == name) return p;
  throw ArgError("--preset: unknown preset '" + name + "'");
}

namespace {
std::vector<int> parse_sms(const std::string& s) {
  std::vector<int> out = parse_sms_list(s, kEpMaxBlocks, " or auto");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
}  // namespace

std::vector<Point> plan_points(const Preset& p, const GridText& f, int ll_max_tokens) {
  std::vector<Point> out;
  for (const GridText& g : p.grids) {
    auto pick = [](const std::string& flag, const std::string& dflt) { return flag.empty() ? dflt : flag; };
    Grid grid;
    grid.ll_max_tokens = ll_max_tokens;
    for (const auto& n : parse_name_list(pick(f.ops, g.ops), op_names(), "operation (--ops)")) grid.ops.push_back(parse_op(n));
    grid.impls = parse_name_list(pick(f.impls, g.impls), names_of(impl_infos()), "implementation (--impls)");
    for (const auto& n : parse_name_list(pick(f.routings, g.routings), routing_names(), "routing (--routings)"))
      grid.routings.push_back(parse_routing(n));
    try {
      grid.tokens = parse_int_list(pick(f.tokens, g.tokens), 0);
    } catch (const ArgError& e) {
      throw ArgError("--tokens: " + std::string(e.what()));
    }
    for (int t : grid.tokens)
      if (t < 1 || t >= kMaxTokens) throw ArgError("--tokens: " + std::to_string(t) + ": 1 to " + std::to_string(kMaxTokens - 1));
    grid.sms = parse_sms(pick(f.sms, g.sms));
    for (const Point& pt : build_points(grid)) {
      const std::string n = pt.name();
      if (std::none_of(out.begin(), out.end(), [&](const Point& q) { return q.name() == n; })) out.push_back(pt);
    }
  }
  return out;
}

int auto_sms(const std::string& impl, int tokens, int budget) {
  // Without a tuning table: the low-latency kernel one SM per 16 tokens (its (source, token)
  // slots spread over the warps), the others DeepEP's default budget of 24 SMs.
  const int want = impl == "ll" ? std::max(4, (tokens + 15) / 16) : 24;
  return std::max(1, std::min(budget, want));
}

const std::vector<std::string>& ep_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> c = {
        // (ranks: a metadata column: the group's ranks, virtual ones included)
        "study", "op", "impl", "family", "routing", "tokens", "hidden", "experts", "topk", "h_expert",
        "processes", "sms", "compute_sms", "threads", "config",
        // dispatch (the whole operation for dispatch_gemm), combine
        "iters_per_sample", "samples", "dispatch_us_median", "dispatch_us_p10", "dispatch_us_p90", "dispatch_us_min",
        "combine_us_median", "combine_us_p10", "combine_us_p90", "combine_us_min", "total_us_median",
        // traffic: token bytes that crossed a link, each token once per rank, all ranks
        "link_bytes", "dispatch_gbps_per_rank", "combine_gbps_per_rank", "recv_rows_max", "tflops",
        // the check of the final run
        "verified", "wrong_rows", "wrong_counts", "wrong_values", "max_rel_err",
        // a reference tool's figure for the same shape (DeepEP), merged by pkbench_ep_ref
        "ref_tool", "ref_sms", "ref_dispatch_us", "ref_combine_us", "ref_time_us", "ref_speedup",
        "status", "error"};
    for (const auto& m : metadata_columns()) c.push_back(m);
    return c;
  }();
  return v;
}

}  // namespace pk::ep
