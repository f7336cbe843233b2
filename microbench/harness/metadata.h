#pragma once
// Columns every CSV row carries, so a file read alone says where it was measured.
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/peer_group.h"

namespace pk {

// git commit: $PKBENCH_GIT_COMMIT when set, else the commit the build was configured at.
Row metadata_row(const PeerGroup& group);
// Without a group (tests, listings): one process.
Row metadata_row(const Topology& topo, const std::string& peer_mode, int ranks = 1);
std::string git_commit();
std::string utc_timestamp();

}  // namespace pk
