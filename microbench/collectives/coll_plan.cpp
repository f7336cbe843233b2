#include "microbench/collectives/coll_plan.h"

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"

namespace pk::coll {

const std::vector<CollPreset>& coll_presets() {
  // A figure of the paper: its collectives in bf16, eager and graph, every NCCL configuration;
  // the sizes of the classic collectives and the tensor layouts' (the other list is inert).
  const auto figure = [](const std::string& name, const std::string& what, const std::string& collectives,
                         const std::string& sizes, const std::string& tensor_sizes) -> CollPreset {
    return {name, what + " " + collectives + " in bf16 (sizes " + sizes + ", tensors " + tensor_sizes +
                      "), eager and graph, every NCCL configuration",
            collectives, "bf16", sizes, tensor_sizes, "eager,graph", "all", "", "", "", ""};
  };
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
      {"one_gpu", "scripts/run.sh's one-GPU profile (virtual ranks): the full preset at 4 KiB to 64 MiB by 4x",
       "all", "bf16,fp32", "4K:64M:x4", "8M,64M,256M", "eager,graph", "all", "", "", "", ""},
      // The paper's figures (scripts/reproduce.sh runs each by name).
      figure("fig6", "Figure 6:", "all_reduce", "4K:1G:x4", "8M,64M,256M"),
      figure("fig6all", "Figure 6, the other collectives:", "all_gather,reduce_scatter,all_to_all", "4K:1G:x4", "8M,64M,256M"),
      figure("fig15", "Figure 15:", "all_gather_cols", "4K:1G", "64M"),
      figure("fig16", "Figure 16:", "reduce_scatter_cols", "4K:1G", "64M"),
      figure("fig17", "Figure 17:", "all_to_all_4d", "4K:1G", "64M"),
      // Sequence parallelism (microbench/seqpar): Ulysses' 4-D all-to-all over S per rank of 1 K to
      // 128 K tokens at B = 1, H = 128, D = 128 (32 KiB of bf16 per token: 32 MiB to 4 GiB), and the
      // column all-gather / reduce-scatter at the same bytes, at every GPU count; the 4-D all-to-all
      // splits H over the ranks, so it runs at the counts that divide 128 (scripts name them).
      {"ulysses",
       "sequence parallelism (the appendix's Figures 15-20): all_to_all_4d at B,H,D = 1,128,128 and S per rank 1K "
       "to 128K tokens (32 MiB to 4 GiB), all_gather_cols and reduce_scatter_cols at the same sizes, bf16, eager and "
       "graph, NCCL's default configuration with the reshape copies; the same at fewer GPUs",
       "all_to_all_4d,all_gather_cols,reduce_scatter_cols", "bf16", "4K", "32M:4G", "eager,graph", "default", "", "",
       "", "", "1,128,128"},
      {"ulysses_one_gpu", "the ulysses preset at 32 to 256 MiB by 4x: scripts/run.sh's one-GPU profile",
       "all_to_all_4d,all_gather_cols,reduce_scatter_cols", "bf16", "4K", "32M:256M:x4", "eager,graph", "default", "", "",
       "", "", "1,128,128"},
      {"ulysses_layer",
       "sequence parallelism, the DeepSpeed-Ulysses layer's shape (Figure 11): all_to_all_4d at B,H,D = 16,128,128, "
       "S per rank 1K to 8K tokens (512 MiB to 4 GiB), bf16, eager and graph, NCCL's default configuration",
       "all_to_all_4d", "bf16", "4K", "512M:4G", "eager,graph", "default", "", "", "", "", "16,128,128"},
  };
  return v;
}

const CollPreset& coll_preset(const std::string& name) {
  return find_named(coll_presets(), name, "--preset: unknown preset");
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
          pick(flags.nccl_configs, part(p.partial_nccl_configs), p.nccl_configs),
          pick(flags.a2a, "", p.a2a)};
}

}  // namespace pk::coll
