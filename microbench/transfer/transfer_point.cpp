#include "microbench/transfer/transfer_point.h"

#include <algorithm>
#include <map>
#include <set>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/mechanism.h"

namespace pk::transfer {

const std::vector<std::string>& direction_names() {
  static const std::vector<std::string> v = {"push", "pull", "mixed"};
  return v;
}
const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> v = {"one_way", "bidir", "local", "one_to_all", "all_to_one", "all_pairs"};
  return v;
}

std::string TransferPoint::name() const {
  std::string n = "transfer/" + mechanism + "/" + pattern + "/" + direction + "/gpus:" + std::to_string(gpu_a);
  if (pattern != "local") n += "," + std::to_string(gpu_b);
  n += "/msg:" + format_size(message_bytes) + "/total:" + format_size(total_bytes);
  if (max_ops) n += "/max_ops:" + std::to_string(max_ops);
  if (gpu_count) n += "/ngpus:" + std::to_string(gpu_count);
  for (const Knob& k : all_knobs())  // declaration order, whatever the map's order
    if (auto it = knobs.find(k.name); it != knobs.end()) n += "/" + k.name + ":" + std::to_string(it->second);
  return n;
}

std::vector<FlowPair> flows_for(const TransferPoint& p, int n) {
  if (p.gpu_count > n)
    throw SkipPoint("needs " + std::to_string(p.gpu_count) + " GPUs, this machine has " + std::to_string(n));
  if (p.gpu_count > 0) n = p.gpu_count;
  auto need = [&](int g) {
    if (g < 0 || g >= n) {
      if (n < 2 && p.pattern != "local")
        throw SkipPoint("pattern " + p.pattern + " needs 2 GPUs, this machine has " + std::to_string(n));
      throw ArgError("GPU " + std::to_string(g) + " does not exist (" + std::to_string(n) + " visible)");
    }
  };
  // The (source, destination) pairs of the pattern...
  std::vector<std::pair<int, int>> pairs;
  const std::string& pat = p.pattern;
  need(p.gpu_a);
  if (pat == "local") {
    pairs.push_back({p.gpu_a, p.gpu_a});
  } else {
    if (n < 2) throw SkipPoint("pattern " + pat + " needs 2 GPUs, this machine has " + std::to_string(n));
    if (pat == "one_way" || pat == "bidir") {
      need(p.gpu_b);
      if (p.gpu_a == p.gpu_b) throw ArgError("pattern " + pat + " needs two different GPUs (use pattern local)");
      pairs.push_back({p.gpu_a, p.gpu_b});
      if (pat == "bidir") pairs.push_back({p.gpu_b, p.gpu_a});
    } else if (pat == "one_to_all" || pat == "all_to_one") {
      for (int g = 0; g < n; ++g)
        if (g != p.gpu_a) pairs.push_back(pat == "one_to_all" ? std::make_pair(p.gpu_a, g) : std::make_pair(g, p.gpu_a));
    } else if (pat == "all_pairs") {
      for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d)
          if (s != d) pairs.push_back({s, d});
    } else {
      throw ArgError("unknown pattern '" + pat + "'");
    }
  }
  // ...and who issues each: the source (push), the destination (pull), or both at once,
  // each moving a full operation (mixed: writes and reads share the link's direction).
  std::vector<FlowPair> f;
  for (auto [s, d] : pairs) {
    if (p.direction == "push" || p.direction == "mixed" || s == d) f.push_back({s, d, s});
    if ((p.direction == "pull" || p.direction == "mixed") && s != d) f.push_back({s, d, d});
    if (p.direction != "push" && p.direction != "pull" && p.direction != "mixed")
      throw ArgError("unknown direction '" + p.direction + "'");
  }
  return f;
}

int directions_of(const std::vector<FlowPair>& flows) {
  std::set<std::pair<int, int>> d;
  for (const auto& f : flows) d.insert({f.src, f.dst});
  return static_cast<int>(d.size());
}

int sms_per_flow(const TransferPoint& p, const std::vector<FlowPair>& flows, int issuer) {
  int k = 0;
  for (const auto& f : flows) k += f.issuer == issuer;
  return std::max(1, p.sms() / std::max(1, k));
}

void validate_common(const TransferPoint& p, const GpuInfo& g, bool uses_sms) {
  if (p.message_bytes == 0 || p.message_bytes % 16)
    throw ArgError("message size " + std::to_string(p.message_bytes) + " B is not a positive multiple of 16 B");
  if (p.total_bytes % 16) throw ArgError("total " + std::to_string(p.total_bytes) + " B is not a multiple of 16 B");
  if (p.message_bytes > p.total_bytes)
    throw ArgError("message size " + format_size(p.message_bytes) + " is larger than the total " +
                   format_size(p.total_bytes));
  if (!uses_sms) return;
  const int sms = p.sms(), bpsm = p.knob(knobs::blocks_per_sm.name), threads = p.knob(knobs::threads.name);
  if (sms < 1 || sms > g.sm_count)
    throw ArgError("--sms=" + std::to_string(sms) + " but " +
                   (g.ordinal < 0 ? g.name : "GPU" + std::to_string(g.ordinal)) + " has " + std::to_string(g.sm_count) +
                   " SMs");
  if (bpsm < 1 || (g.max_blocks_per_sm && bpsm > g.max_blocks_per_sm))
    throw ArgError("--blocks-per-sm must be in 1.." + std::to_string(g.max_blocks_per_sm ? g.max_blocks_per_sm : 32));
  if (threads < 32 || threads > 1024 || threads % 32)
    throw ArgError("--threads must be a multiple of 32 in 32..1024, got " + std::to_string(threads));
  if (g.max_threads_per_sm && threads * bpsm > g.max_threads_per_sm)
    throw ArgError(std::to_string(bpsm) + " blocks of " + std::to_string(threads) + " threads exceed the SM's " +
                   std::to_string(g.max_threads_per_sm) + " threads");
}

Plan make_plan(uint64_t total, uint64_t msg, uint64_t max_ops, uint64_t granule, uint64_t l2, uint64_t region_limit) {
  if (msg == 0 || granule == 0) throw ArgError("make_plan: zero message or granule");
  Plan pl;
  uint64_t cap = total;
  if (max_ops && max_ops < cap / msg) cap = max_ops * msg;
  pl.bytes_per_op = cap / granule * granule;
  if (pl.bytes_per_op == 0)
    throw ArgError("total " + format_size(total) + " is smaller than one unit of work (" + format_size(granule) + ")");
  if (pl.bytes_per_op > region_limit)
    throw ArgError("an operation moves " + format_size(pl.bytes_per_op) + " but the buffers hold " +
                   format_size(region_limit) + " (raise --buffer)");
  pl.ops = pl.bytes_per_op / msg;
  const uint64_t want = 3 * l2;
  uint64_t groups = pl.bytes_per_op >= want ? 1 : (want + pl.bytes_per_op - 1) / pl.bytes_per_op;
  groups = std::min<uint64_t>(groups, region_limit / pl.bytes_per_op);
  pl.groups = static_cast<int>(std::max<uint64_t>(1, groups));
  return pl;
}

}  // namespace pk::transfer
