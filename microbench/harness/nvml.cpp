#include "microbench/harness/nvml.h"
#include "microbench/harness/nvml_subset.h"

#include <dlfcn.h>

#include <mutex>
#include <unordered_map>

namespace pk::nvml {
namespace {

struct Api {
  void* lib = nullptr;
  std::string why;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*link_version)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*field_values)(nvmlDevice_t, int, nvmlFieldValue_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  std::unordered_map<std::string, nvmlDevice_t> handles;
  std::mutex mu;
};

template <class F>
bool load(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

void load_api(Api& x) {
  x.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!x.lib) {
    x.why = "libnvidia-ml.so.1 not loadable (no NVIDIA driver on this machine?)";
    return;
  }
  bool ok = load(x.lib, "nvmlInit_v2", x.init) && load(x.lib, "nvmlSystemGetDriverVersion", x.driver_version) &&
            load(x.lib, "nvmlDeviceGetHandleByPciBusId_v2", x.by_pci) &&
            load(x.lib, "nvmlDeviceGetNvLinkState", x.link_state) &&
            load(x.lib, "nvmlDeviceGetNvLinkVersion", x.link_version) &&
            load(x.lib, "nvmlDeviceGetFieldValues", x.field_values) &&
            load(x.lib, "nvmlDeviceGetClockInfo", x.clock) && load(x.lib, "nvmlDeviceGetMaxClockInfo", x.max_clock);
  if (!ok) {
    x.why = "libnvidia-ml.so.1 lacks an expected entry point";
    x.init = nullptr;
    return;
  }
  if (x.init() != kSuccess) {
    x.why = "nvmlInit failed";
    x.init = nullptr;
  }
}

Api& api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] { load_api(a); });
  return a;
}

nvmlDevice_t handle(const std::string& bus_id) {
  Api& a = api();
  if (!a.init) return nullptr;
  std::lock_guard<std::mutex> lock(a.mu);
  auto it = a.handles.find(bus_id);
  if (it != a.handles.end()) return it->second;
  nvmlDevice_t d = nullptr;
  if (a.by_pci(bus_id.c_str(), &d) != kSuccess) d = nullptr;
  a.handles[bus_id] = d;
  return d;
}

}  // namespace

bool available() { return api().init != nullptr; }
std::string unavailable_reason() { return api().why; }

std::optional<std::string> driver_version() {
  if (!available()) return std::nullopt;
  char buf[96] = {};
  if (api().driver_version(buf, sizeof buf) != kSuccess) return std::nullopt;
  return std::string(buf);
}

std::optional<LinkInfo> nvlink_info(const std::string& pci_bus_id) {
  nvmlDevice_t d = handle(pci_bus_id);
  if (!d) return std::nullopt;
  Api& a = api();
  LinkInfo info;
  for (unsigned link = 0; link < kMaxLinks; ++link) {
    int active = 0;
    if (a.link_state(d, link, &active) != kSuccess) continue;
    if (active) {
      ++info.active_links;
      if (info.nvlink_version == 0) {
        unsigned v = 0;
        if (a.link_version(d, link, &v) == kSuccess) info.nvlink_version = static_cast<int>(v);
      }
    }
  }
  // Per-link speed (field 164, scope = link) on current drivers; the older "common speed"
  // field (90) where that is missing. MBps per link per direction.
  unsigned mbps = 0;
  for (unsigned link = 0; link < kMaxLinks && mbps == 0; ++link) {
    nvmlFieldValue_t fv{};
    fv.fieldId = kFieldNvlinkGetSpeed;
    fv.scopeId = link;
    if (a.field_values(d, 1, &fv) == kSuccess && fv.nvmlReturn == kSuccess) mbps = fv.value.uiVal;
  }
  if (mbps == 0) {
    nvmlFieldValue_t fv{};
    fv.fieldId = kFieldNvlinkSpeedMbpsCommon;
    if (a.field_values(d, 1, &fv) == kSuccess && fv.nvmlReturn == kSuccess) mbps = fv.value.uiVal;
  }
  info.link_gbps = mbps / 1000.0;
  return info;
}

std::optional<unsigned long long> nvlink_rx_kib(const std::string& pci_bus_id) {
  nvmlDevice_t d = handle(pci_bus_id);
  if (!d) return std::nullopt;
  nvmlFieldValue_t fv{};
  fv.fieldId = kFieldNvlinkThroughputDataRx;
  fv.scopeId = kScopeAllLinks;
  if (api().field_values(d, 1, &fv) != kSuccess || fv.nvmlReturn != kSuccess) return std::nullopt;
  return fv.value.ullVal;
}

std::optional<unsigned> sm_clock_mhz(const std::string& pci_bus_id) {
  nvmlDevice_t d = handle(pci_bus_id);
  unsigned mhz = 0;
  if (!d || api().clock(d, kClockSm, &mhz) != kSuccess) return std::nullopt;
  return mhz;
}

std::optional<unsigned> sm_clock_max_mhz(const std::string& pci_bus_id) {
  nvmlDevice_t d = handle(pci_bus_id);
  unsigned mhz = 0;
  if (!d || api().max_clock(d, kClockSm, &mhz) != kSuccess) return std::nullopt;
  return mhz;
}

}  // namespace pk::nvml
