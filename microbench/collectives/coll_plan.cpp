#include "microbench/collectives/coll_plan.h"

#include "microbench/harness/cuda_check.h"

namespace pk::coll {

const std::vector<CollPreset>& coll_presets() {
  static const std::vector<CollPreset> v = {
      {"full",
       "every collective, bf16 and fp32, 4 KiB to 1 GiB doubling (tensor layouts 8, 64, 256 MiB), eager and graph, "
       "every NCCL configuration",
       "all", "bf16,fp32", "4K:1G", "8M,64M,256M", "eager,graph", "all", "", "", "", ""},
      {"main",
       "what scripts/run.sh measures: every collective in bf16 at 4 KiB to 1 GiB by 4x (tensor layouts 64 MiB), "
       "eager and graph, NCCL's default, symmetric, LL and Simple ring configurations (LL128 and forced trees: full); at fewer GPUs "
       "than the run's (--gpu-counts) all-reduce, all-gather and reduce-scatter at 4 KiB to 1 GiB by 16x, graph, "
       "NCCL default and symmetric",
       "all", "bf16", "4K:1G:x4", "64M", "eager,graph", "default,symmetric,LL/Ring,Simple/Ring",
       "all_reduce,all_gather,reduce_scatter", "4K:1G:x16", "graph", "default,symmetric"},
  };
  return v;
}

const CollPreset& coll_preset(const std::string& name) {
  std::string names;
  for (const CollPreset& p : coll_presets()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw ArgError("--preset: unknown preset '" + name + "' (" + names + ")");
}

CollLists round_lists(const CollPreset& p, bool partial, const CollLists& flags) {
  auto pick = [](const std::string& flag, const std::string& part, const std::string& own) {
    return !flag.empty() ? flag : !part.empty() ? part : own;
  };
  const auto part = [partial](const std::string& s) { return partial ? s : std::string(); };
  return {pick(flags.collectives, part(p.partial_collectives), p.collectives),
          pick(flags.dtypes, "", p.dtypes),
          pick(flags.sizes, part(p.partial_sizes), p.sizes),
          pick(flags.tensor_sizes, "", p.tensor_sizes),
          pick(flags.modes, part(p.partial_modes), p.modes),
          pick(flags.nccl_configs, part(p.partial_nccl_configs), p.nccl_configs)};
}

}  // namespace pk::coll
