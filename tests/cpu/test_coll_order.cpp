// Collective study, CPU: the run order of the points (coll_order.h). NVSHMEM, once initialised,
// inflated every host-timed row of the process (2fb8dca:results/h200x2/collectives/experiments/
// nvlink-98ca11c/), so every point that initialises it runs after all the others; the rest keep
// the plan's order (the order of coll_list.h, sizes, modes, implementations).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microbench/collectives/coll_order.h"

using namespace pk::coll;

TEST(CollPointOrder, OnlyTheNvshmemFamilyInitialisesNvshmem) {
  EXPECT_TRUE(initialises_nvshmem("nvshmem"));
  for (const char* f : {"pk", "nccl", "nccl_sym", "multicast", "", "nvshmem_x"}) EXPECT_FALSE(initialises_nvshmem(f)) << f;
}

TEST(CollPointOrder, NvshmemPointsLastStableOtherwise) {
  // Two sizes x two modes of a plan whose --impls named nvshmem first (the committed run's order).
  const std::vector<std::string> families = {"nvshmem", "nccl", "pk",  "nvshmem", "nccl", "pk",
                                             "nvshmem", "nccl", "pk",  "nvshmem", "nccl_sym", "pk"};
  const std::vector<size_t> order = nvshmem_last(families);
  const std::vector<size_t> expected = {1, 2, 4, 5, 7, 8, 10, 11, 0, 3, 6, 9};
  EXPECT_EQ(order, expected);
  // No non-NVSHMEM point after the first NVSHMEM one.
  bool seen = false;
  for (size_t i : order) {
    if (initialises_nvshmem(families[i])) seen = true;
    else EXPECT_FALSE(seen) << "point " << i << " would be timed with NVSHMEM initialised";
  }
}

TEST(CollPointOrder, WithoutNvshmemTheOrderIsUnchanged) {
  const std::vector<std::string> families = {"nccl", "nccl_sym", "pk", "pk", "multicast"};
  EXPECT_EQ(nvshmem_last(families), (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(nvshmem_last({}).empty());
  EXPECT_EQ(nvshmem_last({"nvshmem", "nvshmem"}), (std::vector<size_t>{0, 1}));
}
