#include "microbench/harness/metadata.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <set>

#ifndef PKBENCH_BUILD_COMMIT
#define PKBENCH_BUILD_COMMIT "unknown"
#endif

namespace pk {

std::string git_commit() {
  if (const char* e = std::getenv("PKBENCH_GIT_COMMIT"); e && *e) return e;
  return PKBENCH_BUILD_COMMIT;
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Row metadata_row(const Topology& topo, const std::string& peer_mode, int ranks) {
  Row r;
  std::set<std::string> names;
  for (const auto& g : topo.gpus) names.insert(g.name);
  std::string name;
  for (const auto& n : names) name += (name.empty() ? "" : "+") + n;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  r["gpu_name"] = name.empty() ? "none" : name;
  // Physical GPUs (host + bus id), not ranks: N virtual ranks on one GPU are one GPU, so that
  // the machine ("h100x1") and its tuning key ("h100x1-virtual4") name the hardware.
  std::set<std::string> physical;
  for (const auto& g : topo.gpus) physical.insert(g.host + "/" + (g.pci_bus_id.empty() ? std::to_string(g.ordinal) : g.pci_bus_id));
  r["gpu_count"] = std::to_string(physical.size());
  r["driver_version"] = topo.driver_version;
  r["cuda_runtime"] = cuda_version_string(topo.cuda_runtime_version);
  r["cuda_driver"] = cuda_version_string(topo.cuda_driver_version);
  r["peer_mode"] = peer_mode;
  r["ranks"] = std::to_string(ranks);
  r["git_commit"] = git_commit();
  r["host"] = host;
  r["timestamp_utc"] = utc_timestamp();
  return r;
}

// Virtual ranks share one process: the ranks column counts the ranks, not the processes.
Row metadata_row(const PeerGroup& g) {
  return metadata_row(g.topology(), g.mode_name(), g.is_virtual() ? g.size() : g.processes());
}

}  // namespace pk
