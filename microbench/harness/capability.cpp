#include "microbench/harness/capability.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "microbench/harness/cuda_check.h"

#ifndef PKBENCH_DEVICE_ARCHS
#define PKBENCH_DEVICE_ARCHS "90a"
#endif

namespace pk {
namespace {

int cc_of(const GpuInfo& g) { return g.cc_major * 10 + g.cc_minor; }

std::string cc_text(const GpuInfo& g) { return std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor); }

// An "a" target (90a, 100a) runs only on exactly that compute capability; a plain one
// (80, 90) on that capability and later minors of the same major (SASS compatibility).
// CMake's "native", "all", "all-major" name no fixed list: nothing can be refused on them.
// "NN-virtual" is PTX, which the driver JITs for NN and every later capability.
bool runs_on(const std::string& arch, int cc) {
  if (arch.empty() || !std::isdigit(static_cast<unsigned char>(arch[0]))) return true;
  const bool ptx = arch.find("-virtual") != std::string::npos;
  const std::string base = arch.substr(0, arch.find('-'));
  const bool specific = base.back() == 'a';
  const int a = std::atoi(base.c_str());
  if (specific) return a == cc;
  return ptx ? a <= cc : (a / 10 == cc / 10 && a <= cc);
}

GpuInfo fake(const char* name, int major, int minor, int sms, int64_t smem_sm_kib, int64_t l2_mib) {
  GpuInfo g;
  g.ordinal = 0;
  g.name = name;
  g.cc_major = major;
  g.cc_minor = minor;
  g.sm_count = sms;
  g.l2_bytes = l2_mib << 20;
  g.global_mem_bytes = 80ll << 30;
  g.smem_per_sm_bytes = smem_sm_kib * 1024;
  g.smem_per_block_optin_bytes = (smem_sm_kib - 1) * 1024;
  g.smem_reserved_per_block_bytes = 1024;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  return g;
}

}  // namespace

const char* feature_name(Feature f) {
  switch (f) {
    case Feature::device_code: return "device code";
    case Feature::tma: return "tma";
    case Feature::clusters: return "clusters";
    case Feature::wgmma: return "wgmma";
    case Feature::multicast: return "multicast";
  }
  return "?";
}

std::string arch_name(const GpuInfo& g) { return "sm_" + std::to_string(cc_of(g)); }

const std::vector<std::string>& built_archs() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    std::string cur;
    for (const char* c = PKBENCH_DEVICE_ARCHS;; ++c) {
      if (*c == ',' || *c == ';' || *c == '\0') {
        // CMake spellings such as "90a-real" name the same SASS target ("-virtual": see runs_on).
        if (auto dash = cur.find('-'); dash != std::string::npos && cur.compare(dash, 8, "-virtual") != 0) cur.resize(dash);
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
        if (*c == '\0') break;
      } else {
        cur += *c;
      }
    }
    return out;
  }();
  return v;
}

std::string missing_feature(Feature f, const GpuInfo& g) {
  const int cc = cc_of(g);
  const std::string have = " (" + arch_name(g) + " has " + cc_text(g) + ")";
  switch (f) {
    case Feature::device_code: {
      std::string list;
      for (const auto& a : built_archs()) {
        if (runs_on(a, cc)) return "";
        list += (list.empty() ? "" : ",") + a;
      }
      return "this build has no device code for " + arch_name(g) + " (PKBENCH_CUDA_ARCHS=" + list + ")";
    }
    case Feature::tma:
    case Feature::clusters:
    case Feature::multicast:
      if (cc >= 90) return "";
      return std::string(feature_name(f)) + " needs compute capability >= 9.0" + have;
    case Feature::wgmma:
      if (cc == 90) return "";
      return "wgmma needs sm_90a" + have + "; no GEMM of this suite for it yet";
  }
  return "unknown feature";
}

std::string missing_features(const std::vector<Feature>& needs, const GpuInfo& g) {
  for (Feature f : needs)
    if (auto why = missing_feature(f, g); !why.empty()) return why;
  return "";
}

std::vector<std::string> arch_names() { return {"sm_80", "sm_90", "sm_90a", "sm_100", "sm_100a"}; }

GpuInfo arch_gpu(const std::string& arch) {
  if (arch == "sm_80") return fake("planned for sm_80 (A100 SXM, not present)", 8, 0, 108, 164, 40);
  if (arch == "sm_90" || arch == "sm_90a") {
    GpuInfo g = reference_gpu();
    g.name = "planned for sm_90a (reference Hopper SXM, not present)";
    return g;
  }
  if (arch == "sm_100" || arch == "sm_100a") return fake("planned for sm_100a (B200, not present)", 10, 0, 148, 228, 126);
  std::string list;
  for (const auto& a : arch_names()) list += (list.empty() ? "" : ", ") + a;
  throw ArgError("--arch=" + arch + ": unknown architecture (known: " + list + ")");
}

GpuInfo largest_supported_gpu() {
  GpuInfo big = reference_gpu();
  for (const auto& a : arch_names()) {
    const GpuInfo g = arch_gpu(a);
    big.sm_count = std::max(big.sm_count, g.sm_count);
    big.smem_per_sm_bytes = std::max(big.smem_per_sm_bytes, g.smem_per_sm_bytes);
    big.smem_per_block_optin_bytes = std::max(big.smem_per_block_optin_bytes, g.smem_per_block_optin_bytes);
    big.l2_bytes = std::max(big.l2_bytes, g.l2_bytes);
  }
  big.ordinal = -1;  // not a GPU of this machine: messages name it
  big.name = "the largest supported GPU";
  return big;
}

std::string keep_nccl_multicast_off() {
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  if (!v) {
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    return "";
  }
  if (std::string(v) != "0")
    return "NCCL_NVLS_ENABLE=" + std::string(v) + ": NVSwitch multicast is never run here; unset it or set it to 0";
  return "";
}

}  // namespace pk
