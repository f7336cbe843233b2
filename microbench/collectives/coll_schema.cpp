#include "microbench/collectives/coll_schema.h"

namespace pk::coll {

// time_us_*: the device-time view (gated CUDA events, slowest rank); time_us_nccltests:
// nccl-tests' method (the headline); ref_*: the reference tool's figure for a baseline row.
// sms, threads: the grid our kernel launched (empty for the baselines); knobs: "auto" (the
// implementation's own choice) or the --coll-sms/--coll-threads values it ran with; tuning:
// on `tuned` rows, what the tuning table answered (coll_tuned.cu).
const std::vector<std::string>& coll_columns() {
  static const std::vector<std::string> c = {
      "study", "collective", "impl", "family", "dtype", "bytes", "count", "in_elems_per_rank", "out_elems_per_rank",
      "gpus", "processes", "launch_mode", "ops_per_graph", "config",
      "sms", "threads", "knobs", "tuning",
      "nccl_config", "iters_per_sample", "samples",
      "time_us_median", "time_us_p10", "time_us_p90", "time_us_min", "algbw_gbps", "busbw_gbps", "busbw_factor",
      "time_us_nccltests", "busbw_gbps_nccltests", "nccltests_iters", "nccltests_graph_launches", "nccltests_repeats", "nccltests_shift", "ref_tool", "ref_time_us", "ref_ratio", "wrong",
      "max_abs_err", "max_rel_err", "verified", "nccl_env", "status", "error"};
  return c;
}

const std::vector<std::string>& coll_read_columns() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> v = coll_columns();
    for (const char* x : {"nccl_algo", "speedup_vs_nccl", "speedup_vs_nccl_sym", "speedup_vs_best_nccl", "speedup_vs_nvshmem"})
      v.push_back(x);
    return v;
  }();
  return c;
}

}  // namespace pk::coll
