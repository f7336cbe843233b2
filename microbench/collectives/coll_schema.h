#pragma once
// The columns of collectives.csv (the study appends the metadata columns), declared once
// in plain C++ (no CUDA) so that plain tools and the sweeps can use them.
#include <string>
#include <vector>

namespace pk::coll {

const std::vector<std::string>& coll_columns();
// What the sweeps accept in a collectives CSV: coll_columns() and the retired columns older
// files carry (nccl_algo, the per-row speedups the sweeps now compute): read, ignored.
const std::vector<std::string>& coll_read_columns();

}  // namespace pk::coll
