#pragma once
// One point of the transfer study and what is derived from it. No CUDA here: the grid,
// validation and planning are plain C++ so the CPU tests can exercise them.
#include <cstdint>
#include <string>
#include <vector>

#include "microbench/harness/topology.h"
#include "microbench/transfer/knob.h"

namespace pk::transfer {

const std::vector<std::string>& direction_names();  // push, pull, mixed (both ends issue half)
const std::vector<std::string>& pattern_names();    // one_way, bidir, local, one_to_all, all_to_one, all_pairs

struct TransferPoint {
  std::string sweep = "custom";  // which grid produced it: fig2, fig3, tune, local, custom
  std::string mechanism = "tma_bulk";
  std::string direction = "push";
  std::string pattern = "one_way";
  int gpu_a = 0, gpu_b = 1;  // one_way/bidir: a->b (and b->a); local: a; one_to_all/all_to_one: root a
  int gpu_count = 0;  // fan patterns (one_to_all, all_to_one, all_pairs) use GPUs 0..gpu_count-1 (0: all)
  uint64_t message_bytes = 16384;
  uint64_t total_bytes = 1ull << 30;  // requested bytes per flow per operation
  uint64_t max_ops = 0;               // messages per operation at most (0: mechanism default)
  KnobValues knobs;                   // the mechanism's knobs (0 or absent: its default)
  bool auto_fit = false;  // presets may shrink TMA warps/depth to fit shared memory

  int knob(const std::string& k) const {
    auto it = knobs.find(k);
    return it == knobs.end() ? 0 : it->second;
  }
  int sms() const { return knob("sms"); }
  std::string name() const;  // unique, stable benchmark name
};

struct FlowPair {
  int src, dst, issuer;
};
// The flows of a pattern. Throws SkipPoint when the machine has too few GPUs for it and
// ArgError when an explicitly requested GPU does not exist.
std::vector<FlowPair> flows_for(const TransferPoint& p, int n_gpus);
// Distinct (source, destination) pairs: "per direction" bandwidth divides by this.
int directions_of(const std::vector<FlowPair>& flows);
// Flows issued by the same GPU share its SMs: blocks for one flow.
int sms_per_flow(const TransferPoint& p, const std::vector<FlowPair>& flows, int issuer);

// Checks shared by every mechanism (sizes, SM counts, threads). Throws ArgError.
void validate_common(const TransferPoint& p, const GpuInfo& issuer, bool uses_sms);

struct Plan {
  uint64_t ops = 0;           // messages per operation
  uint64_t bytes_per_op = 0;  // per flow
  int groups = 1;             // input groups rotated through so the working set is >= 3x L2
};
// granule: bytes_per_op must be a multiple of it (a message, or a full row band of tiles).
Plan make_plan(uint64_t total_bytes, uint64_t message_bytes, uint64_t max_ops, uint64_t granule, uint64_t l2_bytes,
               uint64_t region_limit_bytes);

}  // namespace pk::transfer
