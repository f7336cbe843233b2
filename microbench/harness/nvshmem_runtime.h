#pragma once
// NVSHMEM's host side as the studies use it (the primitives' nvshmem style, the collectives'
// NVSHMEM baseline): one PE per process, bootstrapped with a unique
// id (nvshmemx_get_uniqueid on rank 0, broadcast over pk::Comm, nvshmemx_set_attr_uniqueid_
// args, init with NVSHMEMX_INIT_WITH_UNIQUEID). The uid path dlopens the bootstrap plugin
// nvshmem_bootstrap_uid.so.3: libnvshmem_host.so.3 carries RPATH $ORIGIN, so the plugin
// beside it is found, and NVSHMEM_BOOTSTRAP_UID_PLUGIN is set to that full path anyway
// (unless the user set it) so that no other copy on the library path is picked up.
// Plain C++ interface (no NVSHMEM headers): the tests use it too.
#include <cstdint>
#include <string>
#include <vector>

#include "microbench/harness/comm.h"

namespace pk {

class NvshmemRuntime {
 public:
  // Collective over `comm` (one PE per rank; the current CUDA device is this rank's GPU).
  // single_node: also set NVSHMEM_REMOTE_TRANSPORT=none (P2P only, no network transport
  // probing) and NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo, unless set. Defaults (unless set):
  // NVSHMEM_DISABLE_NVLS=1, NVSHMEM_SYMMETRIC_SIZE=3G. Throws std::runtime_error (every
  // rank) if initialisation fails. Its time is the point's `communicator` part (point_cost.h).
  NvshmemRuntime(Comm& comm, bool single_node);
  ~NvshmemRuntime();
  NvshmemRuntime(const NvshmemRuntime&) = delete;
  NvshmemRuntime& operator=(const NvshmemRuntime&) = delete;
  int my_pe() const;
  int n_pes() const;
  // Collective nvshmem_malloc, zeroed; the same symmetric address on every PE.
  void* alloc(uint64_t bytes, const std::string& what);
  // nvshmem_ptr: the address through which this PE reaches `pe`'s copy of `sym` (or null).
  void* peer_address(const void* sym, int pe) const;
  // nvshmem_runtime_version(), PEs, host library and bootstrap plugin, for the log.
  std::string describe() const;

 private:
  Comm& comm_;
  std::vector<void*> allocs_;
  std::string plugin_;
};

// The directory of the libnvshmem_host.so.3 this process loaded ("" if unknown).
std::string nvshmem_host_library_dir();
// "NVSHMEM 3.4.5 (OpenSHMEM 1.3; built against headers 3.8.0)": the loaded library's
// version, asked at run time (the headers' part only when they differ).
std::string nvshmem_runtime_version();

}  // namespace pk
