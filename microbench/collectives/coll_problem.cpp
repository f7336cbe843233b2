#include "microbench/collectives/coll_problem.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "microbench/harness/cuda_check.h"

namespace pk::coll {

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> v{"bf16", "fp32"};
  return v;
}
DType parse_dtype(const std::string& s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp32" || s == "f32" || s == "float") return DType::f32;
  throw ArgError("--dtypes: unsupported dtype '" + s + "' (supported: bf16, fp32)");
}
std::string dtype_name(DType t) { return t == DType::bf16 ? "bf16" : "fp32"; }
uint64_t dtype_bytes(DType t) { return t == DType::bf16 ? 2 : 4; }

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> v{"all_reduce",      "all_gather",          "reduce_scatter", "all_to_all",
                                          "all_gather_cols", "reduce_scatter_cols", "all_to_all_4d"};
  return v;
}

int layout_of(const std::string& c) {
  if (c == "all_reduce") return kAllReduce;
  if (c == "all_gather") return kAllGather;
  if (c == "reduce_scatter") return kReduceScatter;
  if (c == "all_to_all") return kAllToAll;
  if (c == "all_gather_cols") return kAllGatherCols;
  if (c == "reduce_scatter_cols") return kReduceScatterCols;
  if (c == "all_to_all_4d") return kAllToAll4d;
  throw ArgError("--collectives: unknown collective '" + c + "'");
}

double busbw_factor(int layout, int n) {
  if (n < 1) return 0;
  if (layout == kAllReduce) return 2.0 * (n - 1) / n;
  return static_cast<double>(n - 1) / n;
}

const std::vector<std::string>& launch_mode_names() {
  static const std::vector<std::string> v{"eager", "graph"};
  return v;
}
std::string launch_mode_name(LaunchMode m) { return m == LaunchMode::eager ? "eager" : "graph"; }

namespace {
std::string fmt_bytes(uint64_t b) { return std::to_string(b) + " B"; }

// Element counts of a problem whose per-rank block is `count` (rows for *_cols, Sl for 4-D).
Problem from_block(const std::string& coll, DType t, uint64_t block, int n, const TensorDims& d) {
  Problem p;
  p.coll = coll;
  p.layout = layout_of(coll);
  p.dtype = t;
  p.n = n;
  const uint64_t e = dtype_bytes(t);
  // A gather's input (a scatter's output) is the per-rank shard; the other side is n shards.
  auto gathered = [&](uint64_t shard, bool gather) {
    p.count = shard;
    (gather ? p.in_elems : p.out_elems) = shard;
    (gather ? p.out_elems : p.in_elems) = shard * n;
    p.bytes = shard * n * e;
  };
  switch (p.layout) {
    case kAllReduce:
      p.count = p.in_elems = p.out_elems = block;
      p.bytes = block * e;
      break;
    case kAllGather:
      gathered(block, true);
      break;
    case kReduceScatter:
      gathered(block, false);
      break;
    case kAllToAll:
      p.count = block;
      p.in_elems = p.out_elems = block * n;
      p.bytes = p.in_elems * e;
      break;
    case kAllGatherCols:
    case kReduceScatterCols:
      p.rows = block;
      p.cols = d.cols;
      gathered(p.rows * p.cols, p.layout == kAllGatherCols);
      break;
    case kAllToAll4d:
      p.B = d.batch;
      p.Sl = block;
      p.H = d.heads;
      p.D = d.head_dim;
      p.in_elems = p.out_elems = p.B * p.Sl * p.H * p.D;
      p.count = p.in_elems / n;
      p.bytes = p.in_elems * e;
      break;
  }
  return p;
}
}  // namespace

Problem make_problem_count(const std::string& coll, DType t, uint64_t count, int n, const TensorDims& d) {
  if (n < 1 || n > 8) throw ArgError("ranks: " + std::to_string(n) + " is outside 1..8");
  if (count == 0) throw ArgError("--sizes: a collective needs at least one element per rank");
  const int layout = layout_of(coll);
  if (layout == kAllGatherCols || layout == kReduceScatterCols)
    if (d.cols == 0) throw ArgError("--tensor-cols: must be positive");
  if (layout == kAllToAll4d) {
    if (d.batch == 0 || d.heads == 0 || d.head_dim == 0) throw ArgError("--a2a-shape: dimensions must be positive");
    if (d.heads % n != 0)
      throw ArgError("--a2a-shape: " + std::to_string(d.heads) + " heads do not split over " + std::to_string(n) +
                     " ranks");
  }
  return from_block(coll, t, count, n, d);
}

uint64_t size_unit(const std::string& coll, DType t, int n, const TensorDims& d) {
  const uint64_t e = dtype_bytes(t);
  switch (layout_of(coll)) {
    case kAllReduce: return e;
    case kAllGatherCols:
    case kReduceScatterCols: return e * n * d.cols;
    case kAllToAll4d: return e * d.batch * d.heads * d.head_dim;
    default: return e * n;
  }
}

Problem make_problem(const std::string& coll, DType t, uint64_t bytes, int n, const TensorDims& d) {
  if (n < 1 || n > 8) throw ArgError("ranks: " + std::to_string(n) + " is outside 1..8");
  const int layout = layout_of(coll);
  const uint64_t unit = size_unit(coll, t, n, d);
  if (unit == 0) throw ArgError("--sizes: the tensor dimensions must be positive");
  if (bytes == 0 || bytes % unit != 0) {
    std::ostringstream os;
    os << "--sizes: " << fmt_bytes(bytes) << " does not split into whole " << dtype_name(t) << " elements";
    if (layout != kAllReduce) os << " per rank on " << n << " ranks";
    if (layout == kAllGatherCols || layout == kReduceScatterCols) os << " with " << d.cols << " columns per rank";
    if (layout == kAllToAll4d) os << " of (B=" << d.batch << ", S, H=" << d.heads << ", D=" << d.head_dim << ") rows";
    os << " for " << coll << " (needs a multiple of " << unit << " B)";
    throw ArgError(os.str());
  }
  return make_problem_count(coll, t, bytes / unit, n, d);
}

RefSpec Problem::ref(int rank, uint64_t seed) const {
  RefSpec s{};
  s.layout = layout;
  s.dtype = dtype_code(dtype);
  s.n = n;
  s.rank = rank;
  s.seed = seed;
  s.count = count;
  s.rows = rows;
  s.cols = cols;
  s.B = B;
  s.Sl = Sl;
  s.H = H;
  s.D = D;
  s.out_elems = out_elems;
  return s;
}

std::string Problem::describe() const {
  std::ostringstream os;
  os << coll << " " << dtype_name(dtype) << " " << bytes << " B on " << n << " ranks (count " << count << ")";
  return os.str();
}

SegLayout direct_layout(const Problem& p, uint64_t piece_bytes) {
  SegLayout L{};
  const uint64_t n = p.n;
  switch (p.layout) {
    case kAllGather: L = {1, 1, p.count, 0, 0, 0, 0, 0, p.count, 0, 0, 0}; break;
    case kAllToAll: L = {1, 1, p.count, 0, 0, p.count, 0, 0, p.count, 0, 0, 0}; break;
    case kReduceScatter: L = {1, 1, p.count, 0, 0, p.count, 0, 0, 0, 0, 0, 0}; break;
    case kAllGatherCols: L = {1, p.rows, p.cols, 0, p.cols, 0, 0, n * p.cols, p.cols, 0, 0, 0}; break;
    case kReduceScatterCols: L = {1, p.rows, p.cols, 0, n * p.cols, p.cols, 0, p.cols, 0, 0, 0, 0}; break;
    case kAllToAll4d: {
      const uint64_t hn = p.H / n, run = hn * p.D;
      L = {p.B, p.Sl, run, p.Sl * p.H * p.D, p.H * p.D, run, n * p.Sl * run, run, p.Sl * run, 0, 0, 0};
      break;
    }
    default:
      throw ArgError(p.coll + " has no segment layout");
  }
  return finish_layout(L, p.elem_bytes(), piece_bytes);
}

ReshapePlan nccl_reshape_plan(const Problem& p, uint64_t piece_bytes) {
  ReshapePlan r;
  const uint64_t n = p.n, e = p.elem_bytes();
  r.nccl_count = p.count;
  r.nccl_send_elems = p.in_elems;
  r.nccl_recv_elems = p.out_elems;
  switch (p.layout) {
    case kAllGatherCols:  // NCCL gathers (n, rows, cols); the user needs (rows, n, cols)
      r.after = finish_layout({1, p.rows, p.cols, 0, p.cols, p.rows * p.cols, 0, n * p.cols, p.cols, 0, 0, 0}, e,
                              piece_bytes);
      break;
    case kReduceScatterCols:  // the user has (rows, n, cols); NCCL scatters (n, rows, cols)
      r.before = finish_layout({1, p.rows, p.cols, 0, n * p.cols, p.cols, 0, p.cols, p.rows * p.cols, 0, 0, 0}, e,
                               piece_bytes);
      break;
    case kAllToAll4d: {  // (B, Sl, n, Hn, D) -> (n, B, Sl, Hn, D) -> a2a -> (n, B, Sl, Hn, D) -> (B, n*Sl, Hn, D)
      const uint64_t run = p.H / n * p.D, blk = p.B * p.Sl * run;
      r.before = finish_layout({p.B, p.Sl, run, p.Sl * p.H * p.D, p.H * p.D, run, p.Sl * run, run, blk, 0, 0, 0}, e,
                               piece_bytes);
      r.after = finish_layout({p.B, p.Sl, run, p.Sl * run, run, blk, n * p.Sl * run, run, p.Sl * run, 0, 0, 0}, e,
                              piece_bytes);
      r.nccl_count = blk;
      break;
    }
    default:
      break;
  }
  return r;
}

std::string nccl_func_name(int layout) {
  switch (layout) {
    case kAllReduce: return "AllReduce";
    case kAllGather:
    case kAllGatherCols: return "AllGather";
    case kReduceScatter:
    case kReduceScatterCols: return "ReduceScatter";
    default: return "AlltoAll";
  }
}

const std::vector<NcclConfig>& nccl_configs() {
  // NCCL's protocols x the two algorithms a user forces on one node (NVLS and CollNet need
  // multicast or a network plugin; PAT serves one GPU per node).
  static const std::vector<NcclConfig> v = [] {
    std::vector<NcclConfig> c = {{"default", "", "", false}, {"symmetric", "", "", true}};
    for (const char* proto : {"LL", "LL128", "Simple"})
      for (const char* algo : {"Ring", "Tree"}) c.push_back({std::string(proto) + "/" + algo, proto, algo, false});
    return c;
  }();
  return v;
}

std::string NcclConfig::impl_name() const {
  if (name == "default") return "nccl";
  if (symmetric) return "nccl_sym";
  std::string n = "nccl_" + proto + "_" + algo;
  for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return n;
}

std::vector<NcclConfig> parse_nccl_configs(const std::string& list) {
  const auto& known = nccl_configs();
  if (list == "all") return known;
  std::vector<NcclConfig> out;
  size_t a = 0;
  while (a <= list.size()) {
    const size_t b = list.find(',', a);
    const std::string t = list.substr(a, b == std::string::npos ? std::string::npos : b - a);
    if (!t.empty()) {
      auto it = std::find_if(known.begin(), known.end(), [&](const NcclConfig& c) { return c.name == t; });
      if (it == known.end()) {
        std::string names;
        for (const auto& c : known) names += (names.empty() ? "" : ", ") + c.name;
        throw ArgError("--nccl-configs: unknown configuration '" + t + "' (all, " + names + ")");
      }
      if (std::none_of(out.begin(), out.end(), [&](const NcclConfig& c) { return c.name == t; })) out.push_back(*it);
    }
    if (b == std::string::npos) break;
    a = b + 1;
  }
  if (out.empty()) throw ArgError("--nccl-configs: empty list");
  return out;
}

std::string LaunchKnobs::text() const {
  if (is_auto()) return "auto";
  auto v = [](int x) { return x ? std::to_string(x) : std::string("auto"); };
  return "sms=" + v(sms) + " threads=" + v(threads);
}

const char* knob_flag(Knob k) { return k == Knob::sms ? "--coll-sms" : "--coll-threads"; }

std::vector<int> parse_knob_list(Knob k, const std::string& text) {
  const std::string flag = std::string(knob_flag(k)) + "=" + text;
  std::vector<int> out;
  size_t a = 0;
  while (a <= text.size()) {
    const size_t b = text.find(',', a);
    const std::string t = text.substr(a, b == std::string::npos ? std::string::npos : b - a);
    int v = 0;
    if (t != "auto") {
      if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos)
        throw ArgError(flag + ": '" + t + "' is neither auto nor a positive integer");
      v = std::stoi(t);
      if (v == 0) throw ArgError(flag + ": 0: at least one (auto: the implementation's own choice)");
      if (k == Knob::threads && (v % 32 != 0 || v > 1024))
        throw ArgError(flag + ": " + t + ": threads per block are whole warps (a multiple of 32), at most 1024");
    }
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

std::vector<LaunchKnobs> knob_grid(const std::vector<int>& sms, const std::vector<int>& threads) {
  std::vector<LaunchKnobs> out;
  for (int s : sms)
    for (int t : threads) out.push_back({s, t});
  return out;
}

std::string nccl_config_refusal(const NcclConfig& c, int layout) {
  if (c.algo.empty()) return "";
  const std::string f = nccl_func_name(layout);
  if (f == "AlltoAll")
    return "NCCL runs all-to-all as point-to-point sends, which NCCL_ALGO and NCCL_PROTO do not select";
  if (c.algo == "Tree" && f != "AllReduce") return "NCCL has no Tree algorithm for " + f;
  return "";
}

std::string multicast_refusal(bool allow_flag, int device_supports,
                              const std::function<const char*(const char*)>& getenv_fn) {
  if (!allow_flag)
    return "multicast (NVLS) variants run only with --allow-multicast: they can put a shared host's GPUs out of "
           "service";
  struct Guard {
    const char* var;
    const char* refusing;  // the value that refuses
  };
  for (const Guard& g : {Guard{"NCCL_NVLS_ENABLE", "0"}, Guard{"NVSHMEM_DISABLE_NVLS", "1"},
                         Guard{"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}}) {
    const char* v = getenv_fn(g.var);
    if (v && std::string(v) == g.refusing)
      return std::string("multicast refused: ") + g.var + "=" + g.refusing + " is set (this machine keeps NVLink " +
             "multicast off)";
  }
  if (device_supports == 0) return "multicast refused: the device reports no multicast support";
  if (device_supports < 0) return "multicast refused: the device's multicast support is not known";
  return "";
}

}  // namespace pk::coll
