#pragma once
// Passing file descriptors between the processes of one node over a Unix-domain datagram
// socket (SCM_RIGHTS): how VMM allocations exported as POSIX descriptors reach the other
// ranks. Plain POSIX; the CPU tests exercise it under mpirun with ordinary files.
#include <cstdint>
#include <string>
#include <vector>

namespace pk {

class Comm;

class FdChannel {
 public:
  // Binds the abstract-namespace socket "\0<name_prefix>.<local_rank>".
  FdChannel(std::string name_prefix, int local_rank);
  ~FdChannel();
  FdChannel(const FdChannel&) = delete;
  FdChannel& operator=(const FdChannel&) = delete;

  // Sends a duplicate of `fd` (the caller keeps its own) with a tag to a local rank.
  void send(int to_local_rank, int fd, uint64_t tag);
  struct Received {
    int from_local_rank = -1;
    int fd = -1;
    uint64_t tag = 0;
  };
  // Waits at most timeout_ms for one descriptor; throws std::runtime_error on timeout.
  Received receive(double timeout_ms);

 private:
  std::string prefix_;
  int local_rank_;
  int sock_ = -1;
};

// Collective over the ranks of `comm`: every rank sends `fd` to every other rank of its node
// (node_local_ranks lists the local ranks sharing the node, own included) and receives
// theirs. Returns the received descriptors indexed by local rank (own entry: -1); the
// caller closes them. Each call uses a fresh tag, checked on receipt.
std::vector<int> exchange_fds(Comm& comm, FdChannel& ch, const std::vector<int>& node_local_ranks, int my_local_rank,
                              int fd, uint64_t tag, double timeout_ms = 10000);

}  // namespace pk
