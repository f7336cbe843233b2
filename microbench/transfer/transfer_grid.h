#pragma once
// The points a run measures: named presets (fig2, fig3, tune, local, smoke, default) whose
// lists any flag can override, expanded, resolved against the GPU and de-duplicated.
#include <string>
#include <vector>

#include "transfer_point.h"

namespace pk::transfer {

struct GridOptions {
  std::string preset = "default";
  // Overrides; empty keeps the preset's list.
  std::string mechanisms, directions, patterns, sizes, sms, threads, depths, blocks_per_sm, vecs, unrolls, gpus;
  std::string gpu_counts;  // fan patterns over the first K GPUs, for each K (a GPU-count sweep)
  uint64_t total_bytes = 0;  // 0: the preset's
  uint64_t max_ops = 0;      // 0: each mechanism's default
};

const std::vector<std::string>& preset_names();

// Throws ArgError for bad options or an explicitly requested point that cannot run on `g`.
// Combinations a preset generates that do not fit (e.g. TMA stages beyond shared memory in
// the tuning grid) are dropped, and counted in *dropped when given.
std::vector<TransferPoint> build_grid(const GridOptions& o, const GpuInfo& g, int* dropped = nullptr);

}  // namespace pk::transfer
