#include "microbench/collectives/coll_problem.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

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

#define PK_COLLECTIVE(name, impls) const Collective& collective_##name();
#include "microbench/collectives/coll_list.h"
#undef PK_COLLECTIVE

const std::vector<CollectiveEntry>& collectives() {
  static const std::vector<CollectiveEntry> all = {
#define PK_COLLECTIVE(name, impls) {#name, &collective_##name()},
#include "microbench/collectives/coll_list.h"
#undef PK_COLLECTIVE
  };
  return all;
}

const Collective& collective_named(const std::string& name) {
  for (const CollectiveEntry& e : collectives())
    if (e.name == name) return *e.decl;
  throw ArgError("--collectives: unknown collective '" + name + "'");
}

const Collective& collective_of_layout(int layout) {
  for (const CollectiveEntry& e : collectives())
    if (e.decl->layout() == layout) return *e.decl;
  throw std::logic_error("no collective of layout code " + std::to_string(layout));
}

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> names;
    for (const CollectiveEntry& e : collectives()) names.push_back(e.name);
    return names;
  }();
  return v;
}

int layout_of(const std::string& c) { return collective_named(c).layout(); }

double busbw_factor(int layout, int n) { return n < 1 ? 0 : collective_of_layout(layout).busbw_factor(n); }

bool layout_reduces(int layout) {
  Problem p;  // whether the map sums does not depend on the sizes
  p.n = 1;
  return collective_of_layout(layout).ref_map(p, 0).reduces != 0;
}

const char* nccl_func_name(NcclFunc f) {
  switch (f) {  // NCCL's API: one name per function
    case NcclFunc::all_reduce: return "AllReduce";
    case NcclFunc::all_gather: return "AllGather";
    case NcclFunc::reduce_scatter: return "ReduceScatter";
    case NcclFunc::all_to_all: return "AlltoAll";
    case NcclFunc::broadcast: return "Broadcast";
    case NcclFunc::reduce: return "Reduce";
  }
  throw std::logic_error("unknown NCCL function");
}

void VectorCollective::shape(Problem& p, uint64_t block, const TensorDims&) const {
  p.count = p.in_elems = p.out_elems = block;
  p.bytes = block * p.elem_bytes();
}

void shape_gathered(Problem& p, uint64_t shard, bool gather) {
  p.count = shard;
  (gather ? p.in_elems : p.out_elems) = shard;
  (gather ? p.out_elems : p.in_elems) = shard * p.n;
  p.bytes = shard * p.n * p.elem_bytes();
}

ReshapePlan Collective::nccl_reshape(const Problem& p, uint64_t) const {
  ReshapePlan r;
  r.nccl_count = p.count;
  r.nccl_send_elems = p.in_elems;
  r.nccl_recv_elems = p.out_elems;
  return r;
}

const std::vector<std::string>& launch_mode_names() {
  static const std::vector<std::string> v{"eager", "graph"};
  return v;
}
std::string launch_mode_name(LaunchMode m) { return m == LaunchMode::eager ? "eager" : "graph"; }

namespace {
std::string fmt_bytes(uint64_t b) { return std::to_string(b) + " B"; }
}  // namespace

Problem make_problem_count(const std::string& coll, DType t, uint64_t count, int n, const TensorDims& d) {
  if (n < 1 || n > 8) throw ArgError("ranks: " + std::to_string(n) + " is outside 1..8");
  if (count == 0) throw ArgError("--sizes: a collective needs at least one element per rank");
  const Collective& c = collective_named(coll);
  if (const std::string why = c.dims_refusal(n, d); !why.empty()) throw ArgError(why);
  Problem p;
  p.coll = coll;
  p.collective = &c;
  p.layout = c.layout();
  p.dtype = t;
  p.n = n;
  c.shape(p, count, d);
  return p;
}

uint64_t size_unit(const std::string& coll, DType t, int n, const TensorDims& d) {
  return collective_named(coll).size_unit(dtype_bytes(t), n, d);
}

Problem make_problem(const std::string& coll, DType t, uint64_t bytes, int n, const TensorDims& d) {
  if (n < 1 || n > 8) throw ArgError("ranks: " + std::to_string(n) + " is outside 1..8");
  const Collective& c = collective_named(coll);
  const uint64_t unit = c.size_unit(dtype_bytes(t), n, d);
  if (unit == 0) throw ArgError("--sizes: the tensor dimensions must be positive");
  if (bytes == 0 || bytes % unit != 0) {
    std::ostringstream os;
    os << "--sizes: " << fmt_bytes(bytes) << " does not split into whole " << dtype_name(t) << " elements"
       << c.unit_words(n, d) << " for " << coll << " (needs a multiple of " << unit << " B)";
    throw ArgError(os.str());
  }
  return make_problem_count(coll, t, bytes / unit, n, d);
}

RefSpec Problem::ref(int rank, uint64_t seed) const {
  RefSpec s{};
  s.dtype = dtype_code(dtype);
  s.n = n;
  s.seed = seed;
  s.out_elems = out_elems;
  s.map = collective->ref_map(*this, rank);
  return s;
}

std::string Problem::describe() const {
  std::ostringstream os;
  os << coll << " " << dtype_name(dtype) << " " << bytes << " B on " << n << " ranks (count " << count << ")";
  return os.str();
}

SegLayout direct_layout(const Problem& p, uint64_t piece_bytes) {
  const std::optional<SegLayout> L = p.collective->direct_layout(p);
  if (!L) throw ArgError(p.coll + " has no segment layout");
  return finish_layout(*L, p.elem_bytes(), piece_bytes);
}

ReshapePlan nccl_reshape_plan(const Problem& p, uint64_t piece_bytes) {
  return p.collective->nccl_reshape(p, piece_bytes);
}

std::string nccl_func_name(int layout) { return nccl_func_name(collective_of_layout(layout).nccl_func()); }

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
