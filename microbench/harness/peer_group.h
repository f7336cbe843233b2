#pragma once
// The GPUs of a run and the memory they share. Every buffer GPUs share is symmetric (the
// paper's Parallel Global Layout): the same size on every GPU, and on each GPU a table of
// the addresses through which it reaches every GPU's copy, handed to kernels by value. One
// interface, three back ends chosen at run time:
//   single: one process drives every GPU; cudaDeviceEnablePeerAccess; pointers used as-is.
//   ipc:    one process per GPU (mpirun); cudaMalloc + cudaIpcGetMemHandle, handles
//           exchanged over MPI and opened by every peer.
//   vmm:    one process per GPU; cuMemCreate with POSIX file-descriptor handles, the
//           descriptors passed over a Unix socket (SCM_RIGHTS) to the node's other ranks,
//           imported, mapped and made accessible by each importer.
//   virtual: N ranks on one GPU, one process: rank r is a green context holding an equal
//           share of the GPU's SMs, with its own streams; each rank's copy of a symmetric
//           buffer is a separate allocation. Kernels get the same tables as on real peers,
//           so every multi-rank kernel runs, verifies and can be sanitised on one GPU. Its
//           bandwidths are HBM's, never NVLink's.
// GPU numbers are group ranks: the CUDA ordinal in single mode, the MPI rank otherwise.
// Studies never call cudaSetDevice themselves: set_device(gpu) maps a group GPU to this
// process's device.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/peer_table.cuh"
#include "microbench/harness/comm.h"
#include "microbench/harness/topology.h"

namespace pk {

enum class PeerMode { single, ipc, vmm, virt };
const std::vector<std::string>& peer_mode_names();  // single, ipc, vmm, virtual
PeerMode parse_peer_mode(const std::string& s);     // ArgError naming --peer-mode
std::string peer_mode_name(PeerMode m);
// The mode a run gets when --peer-mode is not given: single alone, ipc under mpirun.
PeerMode default_peer_mode(bool under_mpi);
// ArgError when the mode cannot run with this many processes (single under mpirun -np >1,
// ipc/vmm without mpirun).
void check_peer_mode(PeerMode m, const Comm& comm);
// ArgError unless --ranks suits the mode: 2..kMaxGpus with virtual, absent (0) otherwise.
void check_virtual_ranks(PeerMode m, int ranks);
// Virtual ranks when none are named: $PKBENCH_VIRTUAL_RANKS (the GPU tests run once per
// count through it), else 2.
int default_virtual_ranks();

// How N virtual ranks share one GPU's SMs: every rank gets the same share, a multiple of the
// split's alignment and at least its minimum partition; the rest stays idle. ArgError when
// the GPU is too small for N shares.
struct VirtualPlan {
  int ranks = 0;
  int sms_per_rank = 0;
  int idle_sms = 0;
};
VirtualPlan plan_virtual_ranks(int ranks, int device_sms, int min_partition_sms, int alignment_sms);

// Sizes of VMM allocations: a multiple of the allocation granularity (typically 2 MiB).
uint64_t round_up_to_granularity(uint64_t bytes, uint64_t granularity);

// One symmetric buffer as seen by this process: for every GPU it drives, the table of
// addresses through which that GPU reaches every rank's copy. Copyable; the memory belongs
// to the PeerGroup and lives as long as it.
class SymBuf {
 public:
  SymBuf() = default;
  SymBuf(uint64_t bytes, int group_size) : bytes_(bytes), size_(group_size) {}
  uint64_t bytes() const { return bytes_; }
  int group_size() const { return size_; }
  bool has(int gpu) const { return rows_.count(gpu) != 0; }
  // This GPU's own copy (gpu must be driven by this process).
  char* local(int gpu) const { return row(gpu).at(gpu); }
  // The address through which `from` (driven here) reaches `owner`'s copy. SkipPoint when
  // `from` cannot reach it (no peer access, another node).
  char* at(int from, int owner) const;
  template <class T>
  PeerTable<T> table(int from, uint64_t byte_offset = 0) const {
    PeerTable<T> t{};
    const auto& r = row(from);
    for (int i = 0; i < kMaxGpus; ++i) t.at[i] = r[i] ? reinterpret_cast<T*>(r[i] + byte_offset) : nullptr;
    t.self = from;
    t.size = size_;
    return t;
  }
  // Used by the back ends (and the tests) to fill the table of `from`.
  void set_row(int from, const std::array<char*, kMaxGpus>& addrs) { rows_[from] = addrs; }
  const std::array<char*, kMaxGpus>& row(int from) const;

 private:
  uint64_t bytes_ = 0;
  int size_ = 0;
  std::map<int, std::array<char*, kMaxGpus>> rows_;
};

class SymmetricBackend;  // peer_group.cpp

class PeerGroup {
 public:
  // Collective: discovers the group's GPUs (every rank's, gathered under MPI), picks this
  // process's device(s), and readies the back end. Throws ArgError for a mode that cannot
  // run here and std::runtime_error when a GPU or peer cannot be set up.
  // virtual_ranks: with PeerMode::virt, the rank count (0: default_virtual_ranks()).
  // first_gpus: with PeerMode::single, only the first this many GPUs (0: every one); a subset
  // of ranks (ipc, vmm) is a group over Comm::first_ranks.
  PeerGroup(Comm& comm, PeerMode mode, int virtual_ranks = 0, int first_gpus = 0);
  ~PeerGroup();
  PeerGroup(const PeerGroup&) = delete;
  PeerGroup& operator=(const PeerGroup&) = delete;

  PeerMode mode() const { return mode_; }
  std::string mode_name() const { return peer_mode_name(mode_); }
  Comm& comm() { return comm_; }
  const Topology& topology() const { return topo_; }
  int size() const { return topo_.count(); }
  int processes() const { return comm_.size(); }
  bool drives(int gpu) const;
  const std::vector<int>& local_gpus() const { return local_; }
  int owner_rank(int gpu) const;        // the process that drives `gpu`
  int device_ordinal(int gpu) const;    // CUDA ordinal in this process (gpu driven here)
  void set_device(int gpu) const;       // cudaSetDevice(device_ordinal(gpu))
  bool can_access(int from, int owner) const { return topo_.can_access(from, owner); }
  bool is_virtual() const { return mode_ == PeerMode::virt; }
  // The SMs kernels of `gpu` may fill: the whole GPU, or a virtual rank's share. Grids of
  // spin-waiting kernels come from here, never from cudaDeviceProp.
  int sm_budget(int gpu) const { return topo_.gpus.at(gpu).sm_count; }
  // A non-blocking stream of `gpu` (driven here) whose kernels run on that GPU's SMs (a
  // virtual rank's green context); priority as in cudaStreamCreateWithPriority.
  cudaStream_t create_stream(int gpu, int priority = 0) const;
  // Why an outside library that needs one device per rank (NCCL, NVSHMEM) cannot run in
  // this group; "" when it can.
  std::string library_skip_reason(const std::string& library) const;

  // Collective (every process, same size, same order): a symmetric buffer of `bytes` on
  // every GPU. `what` names it in errors.
  SymBuf alloc(uint64_t bytes, const std::string& what);
  void barrier() { comm_.barrier(); }

 private:
  Comm& comm_;
  PeerMode mode_;
  Topology topo_;
  std::vector<int> local_;
  std::vector<int> owner_;     // owner_[gpu] = rank
  std::vector<int> ordinal_;   // ordinal_[gpu] = CUDA ordinal in its own process
  std::unique_ptr<SymmetricBackend> backend_;
  struct GreenRanks;
  std::unique_ptr<GreenRanks> green_;  // virtual mode: one green context per rank
};

// Serialises this process's view of its GPU(s) and builds the group topology from every
// rank's (one GPU per rank). Exposed for the tests.
Topology gather_topology(Comm& comm, const Topology& local, int my_ordinal, std::vector<int>* ordinals);

}  // namespace pk
