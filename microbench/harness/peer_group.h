#pragma once
// The GPUs a study runs on and how their memory is shared. Studies see only this interface:
// single-process peer access is implemented here; one process per GPU (IPC/VMM under MPI)
// is another implementation of the same calls.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "topology.h"

namespace pk {

class PeerGroup {
 public:
  virtual ~PeerGroup() = default;
  virtual std::string mode() const = 0;
  virtual int size() const = 0;               // GPUs in the group (ranks)
  virtual bool drives(int gpu) const = 0;     // this process enqueues work on `gpu`
  virtual int device_ordinal(int gpu) const = 0;
  // Device memory on `gpu`, freed with the group.
  virtual void* alloc(int gpu, size_t bytes) = 0;
  // The address through which `from` reaches memory `ptr` that lives on `owner`.
  // Throws SkipPoint when `from` cannot access `owner`.
  virtual void* peer_ptr(int from, int owner, void* ptr) const = 0;
  // Host barrier over the processes of the group (no-op with one process).
  virtual void barrier() = 0;
  // Largest value over processes (step time = slowest GPU).
  virtual double max_over_processes(double v) = 0;
};

// All GPUs in this process, peer access enabled between every pair that supports it.
std::unique_ptr<PeerGroup> make_single_process_group(const Topology& topo);

}  // namespace pk
