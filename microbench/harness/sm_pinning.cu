#include "microbench/harness/sm_pinning.h"

#include <string>

#include "microbench/harness/cuda_check.h"

namespace pk {

uint64_t pinned_smem_bytes(uint64_t needed, int bpsm, uint64_t per_sm, uint64_t reserved, uint64_t optin) {
  if (bpsm < 1) throw ArgError("blocks per SM must be >= 1");
  // Smallest request r with (bpsm + 1) * (r + reserved) > per_sm.
  uint64_t fence = per_sm / (bpsm + 1);
  uint64_t r = fence >= reserved ? fence - reserved + 1 : 0;
  r = std::max(r, needed);
  r = (r + 127) / 128 * 128;
  if (r > optin || uint64_t(bpsm) * (r + reserved) > per_sm)
    throw ArgError(std::to_string(bpsm) + " blocks per SM needing " + std::to_string(needed) +
                   " B of shared memory each do not fit in the SM's " + std::to_string(per_sm) + " B");
  return r;
}

PinnedLaunch pin_to_sms(const void* kernel, int sms, int bpsm, int threads, uint64_t needed, const GpuInfo& g) {
  PinnedLaunch l;
  l.smem = pinned_smem_bytes(needed, bpsm, g.smem_per_sm_bytes, g.smem_reserved_per_block_bytes,
                             g.smem_per_block_optin_bytes);
  PK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(l.smem)));
  int fit = 0;
  PK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, threads, l.smem));
  if (fit < bpsm)
    throw SkipPoint("cannot pin " + std::to_string(bpsm) + " block(s) of " + std::to_string(threads) +
                   " threads per SM: occupancy allows " + std::to_string(fit) + " (registers or threads limit it)");
  if (fit > bpsm)
    throw ArgError("shared-memory padding failed to pin blocks: " + std::to_string(fit) + " fit per SM, wanted " +
                   std::to_string(bpsm));
  l.grid = dim3(static_cast<unsigned>(sms * bpsm));
  l.block = dim3(static_cast<unsigned>(threads));
  return l;
}

}  // namespace pk
