#include "microbench/harness/topology.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <sstream>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/nvml.h"

namespace pk {

LineRate pair_line_rate(const GpuInfo& a, const GpuInfo& b, bool peer_access) {
  LineRate r;
  if (a.ordinal == b.ordinal) {
    r.source = "n/a (local copy)";
    return r;
  }
  if (!peer_access) {
    r.source = "n/a (no peer access)";
    return r;
  }
  if (a.nvlink_active_links == 0 || b.nvlink_active_links == 0 || a.nvlink_link_gbps <= 0 ||
      b.nvlink_link_gbps <= 0) {
    r.source = "unknown (NVML reports no active NVLink)";
    return r;
  }
  const GpuInfo& narrow = a.nvlink_active_links * a.nvlink_link_gbps <=
                                  b.nvlink_active_links * b.nvlink_link_gbps
                              ? a
                              : b;
  r.gbps = narrow.nvlink_active_links * narrow.nvlink_link_gbps;
  char buf[128];
  std::snprintf(buf, sizeof buf, "nvml: %d links x %.4g GB/s", narrow.nvlink_active_links,
                narrow.nvlink_link_gbps);
  r.source = buf;
  return r;
}

std::string cuda_version_string(int v) {
  if (v <= 0) return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

GpuInfo reference_gpu() {
  GpuInfo g;
  g.ordinal = 0;
  g.name = "reference Hopper SXM (no GPU here)";
  g.cc_major = 9;
  g.sm_count = 132;
  g.l2_bytes = 50ll << 20;
  g.global_mem_bytes = 80ll << 30;
  g.smem_per_sm_bytes = 228 * 1024;
  g.smem_per_block_optin_bytes = 227 * 1024;
  g.smem_reserved_per_block_bytes = 1024;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  return g;
}

Topology discover_topology() {
  Topology t;
  cudaRuntimeGetVersion(&t.cuda_runtime_version);
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0) {
    t.no_gpu_reason = err != cudaSuccess
                          ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err)
                          : "no CUDA devices visible";
    cudaGetLastError();
    return t;
  }
  cudaDriverGetVersion(&t.cuda_driver_version);
  t.driver_version = nvml::driver_version().value_or("unknown (NVML unavailable)");
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    PK_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    GpuInfo g;
    g.ordinal = d;
    g.name = p.name;
    char bus[32] = {};
    PK_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
    g.pci_bus_id = bus;
    g.cc_major = p.major;
    g.cc_minor = p.minor;
    g.sm_count = p.multiProcessorCount;
    g.l2_bytes = p.l2CacheSize;
    g.global_mem_bytes = static_cast<int64_t>(p.totalGlobalMem);
    g.smem_per_sm_bytes = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
    g.smem_per_block_optin_bytes = static_cast<int64_t>(p.sharedMemPerBlockOptin);
    g.smem_reserved_per_block_bytes = static_cast<int64_t>(p.reservedSharedMemPerBlock);
    g.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    g.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d);
    g.sm_clock_max_mhz = nvml::sm_clock_max_mhz(g.pci_bus_id).value_or(khz / 1000);
    if (auto li = nvml::nvlink_info(g.pci_bus_id)) {
      g.nvlink_active_links = li->active_links;
      g.nvlink_link_gbps = li->link_gbps;
      g.nvlink_version = li->nvlink_version;
    }
    t.gpus.push_back(g);
  }
  t.peer_access.assign(n, std::vector<bool>(n, false));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      int ok = 0;
      PK_CUDA_CHECK(cudaDeviceCanAccessPeer(&ok, a, b));
      t.peer_access[a][b] = ok != 0;
    }
  return t;
}

std::string Topology::describe() const {
  std::ostringstream os;
  if (gpus.empty()) {
    os << "no GPU: " << no_gpu_reason << "\n";
    return os.str();
  }
  os << gpus.size() << " GPU(s), driver " << driver_version << ", CUDA driver "
     << cuda_version_string(cuda_driver_version) << ", runtime "
     << cuda_version_string(cuda_runtime_version) << "\n";
  for (const auto& g : gpus) {
    os << "  GPU" << g.ordinal << " " << g.name << " [" << g.pci_bus_id << "] sm_" << g.cc_major
       << g.cc_minor << ", " << g.sm_count << " SMs, L2 " << (g.l2_bytes >> 20) << " MiB, smem/block "
       << (g.smem_per_block_optin_bytes >> 10) << " KiB, SM clock max " << g.sm_clock_max_mhz
       << " MHz, NVLink " << g.nvlink_active_links << " x " << g.nvlink_link_gbps << " GB/s\n";
  }
  os << "  peer access:";
  for (int a = 0; a < count(); ++a) {
    os << " [";
    for (int b = 0; b < count(); ++b) os << (a == b ? 'X' : (peer_access[a][b] ? '1' : '0'));
    os << "]";
  }
  os << "\n";
  for (int a = 0; a < count(); ++a)
    for (int b = 0; b < count(); ++b)
      if (a != b) {
        LineRate lr = line_rate(a, b);
        os << "  line rate GPU" << a << "->GPU" << b << ": " << lr.gbps << " GB/s (" << lr.source
           << ")\n";
      }
  return os.str();
}

}  // namespace pk
