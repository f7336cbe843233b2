#pragma once
// NVML reached through dlopen: nvml.h and libnvidia-ml.so.1 are absent where there is no
// driver (CI, the development machines), and every binary must still start there.
#include <optional>
#include <string>

namespace pk::nvml {

// True once libnvidia-ml.so.1 was loaded and nvmlInit succeeded. Safe to call repeatedly.
bool available();
// Why NVML is unavailable ("" when it is).
std::string unavailable_reason();

std::optional<std::string> driver_version();

// Devices are looked up by PCI bus id: NVML and CUDA may number GPUs differently.
struct LinkInfo {
  int active_links = 0;         // NVLinks in the active state
  double link_gbps = 0.0;       // per link, per direction, GB/s (1e9 B/s), from the common speed
  int nvlink_version = 0;
};
std::optional<LinkInfo> nvlink_info(const std::string& pci_bus_id);

// NVLink data received by the GPU since the driver loaded, KiB, every link summed (NVML's
// throughput counter); nullopt where NVML or the driver does not expose it.
std::optional<unsigned long long> nvlink_rx_kib(const std::string& pci_bus_id);

// Current and maximum SM clock in MHz.
std::optional<unsigned> sm_clock_mhz(const std::string& pci_bus_id);
std::optional<unsigned> sm_clock_max_mhz(const std::string& pci_bus_id);

}  // namespace pk::nvml
