#include "microbench/launch/launch_problem.h"

#include <algorithm>

#include "microbench/harness/args.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::launch {

const std::vector<VariantInfo>& variant_infos() {
  static const std::vector<VariantInfo> v = {
#define PK_LAUNCH_VARIANT(name, pdl, graph, summary) {#name, pdl, graph, summary},
#include "microbench/launch/launch_list.h"
#undef PK_LAUNCH_VARIANT
  };
  return v;
}

const VariantInfo& variant_info(const std::string& name) {
  return find_named(variant_infos(), name, "--variants: unknown variant");
}

std::string Point::name() const {
  return "launch/" + variant + "/k" + std::to_string(kernels) + "/b" + (blocks ? std::to_string(blocks) : "sms");
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = {
      {"default",
       "every variant, 1, 8 and 64 kernels per operation, grids of 1 block and of one block per SM",
       {"all", "1,8,64", "1,sms"}},
      {"smoke", "a quick look: every variant, 1 and 8 kernels per operation, grids of 1 block", {"all", "1,8", "1"}},
  };
  return v;
}

const Preset& preset(const std::string& name) { return find_named(presets(), name, "--preset: unknown preset"); }

std::vector<Point> plan_points(const Preset& p, const GridText& f) {
  auto pick = [](const std::string& flag, const std::string& dflt) { return flag.empty() ? dflt : flag; };
  const std::vector<std::string> variants =
      parse_name_list(pick(f.variants, p.grid.variants), names_of(variant_infos()), "variant (--variants)");
  const std::vector<int> kernels = parse_ints_within("--kernels", pick(f.kernels, p.grid.kernels), 1, kMaxKernels);
  // Blocks: counts, or `sms` (0): one block per SM of the rank.
  const std::vector<int> blocks = parse_counts_or("--blocks", pick(f.blocks, p.grid.blocks), "sms", kMaxBlocks, ", or sms");
  std::vector<Point> out;
  for (int b : blocks)
    for (int k : kernels)
      for (const VariantInfo& info : variant_infos()) {
        if (std::find(variants.begin(), variants.end(), info.name) == variants.end()) continue;
        const Point pt{info.name, k, b};
        if (std::none_of(out.begin(), out.end(), [&](const Point& q) { return q.name() == pt.name(); })) out.push_back(pt);
      }
  return out;
}

int calls_per_op(const Point& p) { return variant_info(p.variant).graph ? 1 : p.kernels; }

double planned_op_ms(const Point& p) { return p.kernels * 4e-3; }

const std::vector<std::string>& launch_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> c = {
        "study", "variant", "pdl", "graph", "kernels", "blocks", "threads", "processes", "calls_per_op",
        // the GPU's time per operation and per kernel (operations queued behind the start gate, so the
        // host's launch cost stays outside it)
        "iters_per_sample", "samples", "op_us_median", "us_per_kernel_median", "us_per_kernel_p10", "us_per_kernel_p90",
        "us_per_kernel_min",
        // the host's time in the launch calls of every operation the point queued (one thread)
        "host_us_per_call", "host_us_per_kernel",
        // the final run's check: each GPU's counter grew by kernels x blocks
        "verified", "counted", "expected", "status", "error"};
    for (const auto& m : metadata_columns()) c.push_back(m);
    return c;
  }();
  return v;
}

}  // namespace pk::launch
