#pragma once
// The subset of NVML's API that pkbench uses, declared here once: nvml.h is not installed
// where there is no driver (CI, the development machines), and the library is reached with
// dlopen (nvml.cpp). Shapes and values follow the public NVML API; field ids "are
// guaranteed never to change".
namespace pk::nvml {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kSuccess = 0;
constexpr int kClockSm = 1;
constexpr unsigned kFieldNvlinkSpeedMbpsCommon = 90;
constexpr unsigned kFieldNvlinkGetSpeed = 164;  // per link (scopeId), MBps
constexpr unsigned kFieldNvlinkThroughputDataRx = 139;  // KiB received, cumulative (scopeId: link or all)
constexpr unsigned kScopeAllLinks = 0xFFFFFFFFu;        // the throughput fields summed over every link
constexpr unsigned kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS on Hopper-era drivers

union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};

}  // namespace pk::nvml
