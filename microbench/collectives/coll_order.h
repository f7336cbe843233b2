#pragma once
// The order the study runs its points in, in plain C++ (the CPU tests check it).
//
// NVSHMEM, once initialised, stays in the process until it is finalised, and with it its host
// side: measured on two H200s (2fb8dca:results/h200x2/collectives/experiments/nvlink-98ca11c/), every
// row's time_us_nccltests, NCCL's and ours, read ~200 us per operation at 4 KiB (NCCL 9.6 us
// without NVSHMEM) while the device-time view stayed normal. So every point that initialises
// NVSHMEM runs after all the others, and NVSHMEM is initialised right before the first of them:
// no other row is host-timed in its presence.
#include <cstddef>
#include <string>
#include <vector>

namespace pk::coll {

// Whether running a point of this family (Impl::family() of what runs: a `tuned` point's
// underlying implementation) initialises NVSHMEM in the process.
bool initialises_nvshmem(const std::string& family);

// The run order of points given each one's family: the indices of every point that does not
// initialise NVSHMEM, in their given order, then those that do, in theirs.
std::vector<size_t> nvshmem_last(const std::vector<std::string>& families);

}  // namespace pk::coll
