#pragma once
// What a GPU can run, declared once per mechanism, kernel and study and checked against the
// GPU's compute capability and this build's device code: a point whose GPU lacks something
// is a skipped row with the reason, never a launch of a wrong (or absent) kernel.
// Fake devices of each architecture let `--list --arch=...` and the CPU tests plan for a GPU
// that is not here.
#include <string>
#include <vector>

#include "microbench/harness/topology.h"

namespace pk {

enum class Feature {
  device_code,  // this binary holds SASS for the GPU (PKBENCH_CUDA_ARCHS; the "a" targets never JIT)
  tma,          // cp.async.bulk[.tensor], mbarrier tx counts: cc >= 9.0
  clusters,     // thread-block clusters, distributed shared memory: cc >= 9.0
  wgmma,        // wgmma.mma_async, setmaxnreg: sm_90a exactly (not carried to sm_100)
  multicast,    // NVSwitch multicast objects, multimem.*: cc >= 9.0 (and the policy gate)
};

const char* feature_name(Feature f);

// "" when g has f, else why not, e.g. "tma needs compute capability >= 9.0 (sm_80 has 8.0)".
std::string missing_feature(Feature f, const GpuInfo& g);
// The first missing feature of `needs`, or "".
std::string missing_features(const std::vector<Feature>& needs, const GpuInfo& g);

// "sm_90" for compute capability 9.0.
std::string arch_name(const GpuInfo& g);

// The architectures this build has device code for, as configured ("90a", "100a").
const std::vector<std::string>& built_archs();

// A stand-in GPU of an architecture (sm_80: A100 SXM; sm_90/sm_90a: the reference Hopper;
// sm_100/sm_100a: B200), its name saying it is planned, not present. ArgError naming --arch
// for anything else.
GpuInfo arch_gpu(const std::string& arch);
std::vector<std::string> arch_names();

// The most of every resource any supported GPU has (SMs, shared memory): a grid refused
// for it is refused on every GPU, so the check needs no GPU.
GpuInfo largest_supported_gpu();

// NVSwitch multicast (NVLS) is never run on the shared machines: "" after forcing
// NCCL_NVLS_ENABLE=0 when it is unset, or the reason to refuse when it is set otherwise
// (every study with an NCCL baseline checks it before anything runs, also without a GPU).
std::string keep_nccl_multicast_off();

}  // namespace pk
