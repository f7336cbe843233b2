#pragma once
// Plain C++ side of the expert-parallel study (the CPU tests build it): the shape, the seeded
// router (every rank's routing is a pure function of the seed, so every rank knows every
// other's and the host can size buffers and check results without any exchange), the traffic
// a routing implies (the counts a correct dispatch must produce), the points of a run and
// their names. Everything refused here throws pk::ArgError naming the flag.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/ep/ep_types.cuh"

namespace pk::ep {

struct EpShape {
  int tokens = 0;      // T per rank
  int hidden = 7168;   // H
  int experts = 256;   // E
  int topk = 8;        // TopK
  int ranks = 2;       // N
  int h_expert = 2048; // the grouped GEMM's output width (H x H_expert per expert)
  int local_experts() const { return experts / ranks; }
  uint64_t token_bytes() const { return uint64_t(hidden) * 2; }
};

// ArgError unless the communication kernels can run the shape (H a multiple of 8 up to 65536,
// 1 <= TopK <= min(E, 8), E a multiple of N, E / N <= 65535, 1 <= T < 2^24, 2 <= N <= 8).
void check_shape(const EpShape& s);
// The same and what the grouped GEMM needs (H a multiple of 64, H_expert of 256).
void check_gemm_shape(const EpShape& s);

enum class RoutingKind { uniform, zipf, no_recv, one_expert };
const std::vector<std::string>& routing_names();  // uniform, zipf, no_recv, one_expert
RoutingKind parse_routing(const std::string& s);   // ArgError naming --routings
std::string routing_name(RoutingKind k);
std::string routing_description(RoutingKind k);
// ArgError when the routing cannot be drawn for the shape (no_recv needs E - E/N >= TopK).
void check_routing(RoutingKind k, const EpShape& s);

struct RouterOptions {
  uint64_t seed = 0x5eed;
  double zipf_alpha = 1.0;  // expert popularity ~ 1 / (e + 1)^alpha (experts of low ids, on low ranks, are hot)
};

// One rank's routing: topk[t * TopK + k] (distinct global experts per token), w[...] > 0
// (summing to 1 per token).
struct Routing {
  std::vector<int32_t> topk;
  std::vector<float> w;
};
Routing make_routing(const EpShape& s, RoutingKind kind, const RouterOptions& o, int rank);

// What every rank's routing implies.
struct Traffic {
  int ranks = 0, experts = 0;
  std::vector<std::vector<int>> tokens_to;  // [s][r]: tokens of s with >= 1 expert on r (sent once)
  std::vector<std::vector<int>> expert_from;  // [s][e]: tokens of s routed to global expert e
  std::vector<int> expert_count;            // [e]: rows expert e receives (sum over sources)
  std::vector<int64_t> rows_packed;         // [r]: rows of r's packed layout (regions aligned to kRowAlign)
  std::vector<int64_t> link_bytes_from;     // [s]: token bytes s sends to other ranks (each token once per rank)
  int max_expert_count = 0;
  int max_slots_in = 0;                     // most tokens one rank receives from one source
  int64_t max_rows_packed() const;
  int64_t link_bytes() const;               // sum over sources
  int64_t tiles(int r, int tiles_n) const;  // grouped GEMM tiles of rank r
};
Traffic traffic_of(const EpShape& s, const std::vector<Routing>& all);

// Exclusive prefix of align_rows(count) over a rank's local experts (count: El values).
std::vector<int> packed_bases(const std::vector<int>& count);

// ---- points ---------------------------------------------------------------------------
enum class Op { dispatch_combine, dispatch_gemm };
const std::vector<std::string>& op_names();
std::string op_name(Op o);
Op parse_op(const std::string& s);

// The implementations of each operation, as the registry declares them (ep_list.h): a name,
// its operation, its family (pk, nccl), whether it is a baseline and what it is.
struct ImplInfo {
  std::string name;
  Op op;
  std::string family;
  bool baseline;
  bool takes_sms;   // its SM count is a knob (--sms)
  std::string summary;
};
const std::vector<ImplInfo>& impl_infos();
const ImplInfo& impl_info(const std::string& name);  // ArgError naming --impls

struct Point {
  std::string impl;
  Op op = Op::dispatch_combine;
  RoutingKind routing = RoutingKind::uniform;
  int tokens = 0;
  int sms = 0;  // 0: the implementation's own choice (auto; NCCL picks its own)
  std::string name() const;  // ep/<op>/<impl>[sms=N]/<routing>/T<tokens>
};

struct Grid {
  std::vector<Op> ops;
  std::vector<std::string> impls;
  std::vector<RoutingKind> routings;
  std::vector<int> tokens;
  std::vector<int> sms;        // 0 = auto
  int ll_max_tokens = 512;     // the low-latency kernel runs at T <= this
};
// Every (op, impl, routing, T, sms) the grid names that applies (an impl of another op, ll
// above ll_max_tokens, an SM count on an implementation without the knob: left out), in run
// order: per op, routing and T, the implementations in registry order. NCCL's points run
// once per (routing, T) at its own grid.
std::vector<Point> build_points(const Grid& g);

// Presets: what a run measures when the flags leave it out, each a union of grids (the
// plans, declared once: scripts and tests name a preset, never a second list). A flag given
// on the command line replaces that field in every grid of the preset.
struct GridText {
  std::string ops, impls, routings, tokens, sms;  // flag syntax; sms: integers or auto
};
struct Preset {
  std::string name, help;
  std::vector<GridText> grids;
};
const std::vector<Preset>& presets();
const Preset& preset(const std::string& name);  // ArgError naming --preset
// The points of `p` with `flags`' non-empty fields replacing the preset's, each grid in
// order, a point named twice kept once. ArgError naming the flag for anything malformed.
std::vector<Point> plan_points(const Preset& p, const GridText& flags, int ll_max_tokens);

// The SMs a kernel of ours uses when --sms says auto, on a rank with `budget` SMs.
int auto_sms(const std::string& impl, int tokens, int budget);

// The CSV columns of pkbench_ep (metadata columns last).
const std::vector<std::string>& ep_columns();

}  // namespace pk::ep
