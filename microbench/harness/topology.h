#pragma once
// What the machine is: GPUs, their limits, how they are connected, and the line rate every
// percentage in the CSVs is taken against.
#include <cstdint>
#include <string>
#include <vector>

namespace pk {

struct GpuInfo {
  int ordinal = -1;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t global_mem_bytes = 0;
  int64_t smem_per_sm_bytes = 0;
  int64_t smem_per_block_optin_bytes = 0;
  int64_t smem_reserved_per_block_bytes = 0;  // the runtime's own share of each block's
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int sm_clock_max_mhz = 0;   // NVML when present, else the CUDA attribute
  int nvlink_active_links = 0;
  double nvlink_link_gbps = 0;  // per link per direction
  int nvlink_version = 0;
  std::string host;     // the node, under MPI ("" with one process)
  int local_rank = 0;   // the driving rank's index among its node's ranks
};

// Per-direction line rate between two GPUs. Over NVLink (direct or through NVSwitch) a GPU
// can move at most its own active links' worth each way, so a pair is limited by the side
// with fewer links. Zero when unknown; `source` says where the number came from.
struct LineRate {
  double gbps = 0;
  std::string source;
};
LineRate pair_line_rate(const GpuInfo& a, const GpuInfo& b, bool peer_access);

struct Topology {
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<bool>> peer_access;  // peer_access[a][b]: a can map b's memory
  std::string no_gpu_reason;                   // set when gpus is empty
  std::string driver_version;
  int cuda_runtime_version = 0;
  int cuda_driver_version = 0;

  int count() const { return static_cast<int>(gpus.size()); }
  bool can_access(int a, int b) const { return a == b || peer_access.at(a).at(b); }
  LineRate line_rate(int a, int b) const { return pair_line_rate(gpus.at(a), gpus.at(b), can_access(a, b)); }
  std::string describe() const;  // human-readable summary for logs
};

// A Hopper SXM GPU (132 SMs, 228 KiB shared memory per SM, 50 MiB L2): what --list plans
// against on a machine without a GPU, and says so.
GpuInfo reference_gpu();

// Reads everything once. Never throws for "no GPU": returns an empty topology with a reason.
Topology discover_topology();

// "12.8" from 12080.
std::string cuda_version_string(int v);

}  // namespace pk
