#pragma once
// The collective study's named grids (--preset), declared once: what a run measures where
// its flags leave a list out. A preset may narrow the rounds of a GPU-count sweep that run on
// fewer GPUs than the run has (--gpu-counts): the scaling figure needs a few collectives and
// sizes at every count, not the whole grid.
#include <string>
#include <vector>

namespace pk::coll {

struct CollPreset {
  std::string name, help;
  std::string collectives, dtypes, sizes, tensor_sizes, modes, nccl_configs;
  // Rounds on fewer GPUs than the run's: these lists instead ("" keeps the preset's own).
  std::string partial_collectives, partial_sizes, partial_modes, partial_nccl_configs;
  // B,H,D of all_to_all_4d's (B, S, H, D) input (--a2a-shape where given).
  std::string a2a = "1,32,128";
};
// "full" (the default) first; "ulysses" and "ulysses_layer" are the sequence-parallel study's
// sweeps of the tensor-dimension collectives (microbench/seqpar/README.md).
const std::vector<CollPreset>& coll_presets();
const CollPreset& coll_preset(const std::string& name);  // ArgError naming --preset

// The lists of one round: the preset's, its partial ones on fewer GPUs than the run's, and
// any list a flag gave (flags win everywhere).
struct CollLists {
  std::string collectives, dtypes, sizes, tensor_sizes, modes, nccl_configs, a2a;
};
CollLists round_lists(const CollPreset& p, bool partial, const CollLists& flags);

}  // namespace pk::coll
