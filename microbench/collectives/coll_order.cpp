#include "microbench/collectives/coll_order.h"

namespace pk::coll {

bool initialises_nvshmem(const std::string& family) { return family == "nvshmem"; }

std::vector<size_t> nvshmem_last(const std::vector<std::string>& families) {
  std::vector<size_t> order;
  order.reserve(families.size());
  for (bool late : {false, true})
    for (size_t i = 0; i < families.size(); ++i)
      if (initialises_nvshmem(families[i]) == late) order.push_back(i);
  return order;
}

}  // namespace pk::coll
