// Placeholder until the implementation lands.
#include "coll_harness.h"

namespace pk::coll {
ImplList segment_tma_impls() { return {}; }
}  // namespace pk::coll
