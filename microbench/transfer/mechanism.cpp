#include "mechanism.h"

#include "../harness/cuda_check.h"

namespace pk::transfer {

const std::vector<const Mechanism*>& mechanisms() {
  static const std::vector<const Mechanism*> all = {&copy_engine_mechanism(), &tma_bulk_mechanism(),
                                                    &tma_tile_mechanism(), &register_mechanism(),
                                                    &register_l2hint_mechanism()};
  return all;
}

const Mechanism& mechanism(const std::string& name) {
  for (const Mechanism* m : mechanisms())
    if (m->name() == name) return *m;
  throw ArgError("unknown mechanism '" + name + "'");
}

}  // namespace pk::transfer
