#pragma once
// The points a run measures: named presets (default, fig2, fig3, tune, mixed, scale, node,
// local, smoke, nvbandwidth, custom) whose lists any flag can override, expanded, resolved
// against the GPU and de-duplicated. The default follows the run's GPU count: on two or more
// GPUs the points shaped as nvbandwidth's testcases (every ordered pair), on three or more the
// node's fan-out, fan-in and all-pairs traffic and Figure 3's SM sweep with a fan-out.
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
extern const uint64_t kNvbandwidthBytes;  // the nvbandwidth sweep's bytes per copy (its -b default)

// Checks every option that needs no GPU (names, list syntax, knob flags that apply to no
// selected mechanism). Throws ArgError naming the flag.
void check_options(const GridOptions& o);

// Throws ArgError for bad options or an explicitly requested point that cannot run on `g`.
// gpu_count: GPUs in the run (0: unknown, e.g. --list without a GPU; indices unchecked); the
// default preset's node sweeps and every-pair points follow it.
// Combinations a preset generates that do not fit (e.g. TMA stages beyond shared memory in
// the tuning grid) are dropped, and counted in *dropped when given.
std::vector<TransferPoint> build_grid(const GridOptions& o, const GpuInfo& g, int gpu_count, int* dropped = nullptr);

}  // namespace pk::transfer
