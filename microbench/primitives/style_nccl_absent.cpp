// Built where NCCL was not found: the nccl_dev rows are recorded as skipped.
#include "microbench/harness/cuda_check.h"
#include "microbench/primitives/primitives.h"

namespace pk::prim {

namespace {
const char* kWhy = "built without NCCL (nccl.h / libnccl not found at configure time)";
}

Row run_nccl(Context&, const Spec&) { throw SkipPoint(kWhy); }
ForeignChain nccl_chain(Context&, uint64_t, int, int) { throw SkipPoint(kWhy); }
void release_nccl() {}
std::string nccl_version_text() { return "NCCL absent"; }

}  // namespace pk::prim
