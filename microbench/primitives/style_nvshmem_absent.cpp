// Built where NVSHMEM was not found: the nvshmem rows are recorded as skipped.
#include "microbench/harness/cuda_check.h"
#include "microbench/primitives/primitives.h"

namespace pk::prim {

namespace {
const char* kWhy =
    "built without NVSHMEM (set PKBENCH_NVSHMEM_ROOT, or pip install nvidia-nvshmem-cu13 for the python3 CMake finds)";
}

Row run_nvshmem(Context&, const Spec&) { throw SkipPoint(kWhy); }
ForeignChain nvshmem_chain(Context&, uint64_t, int, int) { throw SkipPoint(kWhy); }
void release_nvshmem() {}
std::string nvshmem_version_text() { return "NVSHMEM absent"; }

}  // namespace pk::prim
