#pragma once
// The columns of collectives.csv (the study appends the metadata columns), declared once
// in plain C++ (no CUDA) so that plain tools and the sweeps can use them.
#include <string>
#include <vector>

namespace pk::coll {

const std::vector<std::string>& coll_columns();

}  // namespace pk::coll
