#pragma once
// The points a run measures: named presets (fig2, fig3, tune, local, smoke, default) whose
// lists any flag can override, expanded, resolved against the GPU and de-duplicated.
#include <map>
#include <string>
#include <vector>

#include "microbench/transfer/transfer_point.h"

namespace pk::transfer {

struct GridOptions {
  std::string preset = "default";
  // Overrides; empty keeps the preset's list.
  std::string mechanisms, directions, patterns, sizes, gpus;
  std::map<std::string, std::string> knob_lists;  // knob name -> list/range text (--<knob flag>)
  std::string gpu_counts;  // fan patterns over the first K GPUs, for each K (a GPU-count sweep)
  uint64_t total_bytes = 0;  // 0: the preset's
  bool total_given = false;  // --total was given (then 0 is refused, not the preset's)
  uint64_t max_ops = 0;      // 0: each mechanism's default
};

const std::vector<std::string>& preset_names();

// Checks every option that needs no GPU (names, list syntax, knob flags that apply to no
// selected mechanism). Throws ArgError naming the flag.
void check_options(const GridOptions& o);

// Throws ArgError for bad options or an explicitly requested point that cannot run on `g`.
// gpu_count: GPUs in the run (0: unknown, e.g. --list without a GPU; indices unchecked).
// Combinations a preset generates that do not fit (e.g. TMA stages beyond shared memory in
// the tuning grid) are dropped, and counted in *dropped when given.
std::vector<TransferPoint> build_grid(const GridOptions& o, const GpuInfo& g, int gpu_count, int* dropped = nullptr);

}  // namespace pk::transfer
