#pragma once
// Host-side communication between the processes of a run: one process driving every GPU,
// or one process per GPU under mpirun. Nothing here includes mpi.h, so code that uses it
// builds where MPI is absent; the MPI implementation lives in comm_mpi.cpp.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pk {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual bool is_mpi() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks of this node
  virtual int local_size() const = 0;
  virtual void barrier() = 0;
  // all[r * bytes ...] = rank r's `mine`.
  virtual void allgather(const void* mine, void* all, size_t bytes) = 0;
  virtual void broadcast(void* data, size_t bytes, int root) = 0;
  // Element-wise maximum over ranks, in place.
  virtual void allreduce_max(double* v, int n) = 0;
  // Ends every rank of the run with `code` (MPI_Abort); with one process, std::exit.
  [[noreturn]] virtual void abort(int code) = 0;
  // Collective: a communicator of ranks 0..k-1 (same order) for those ranks, nullptr for the
  // others: the rank subsets of a GPU-count sweep (one mpirun, the studies at 2..N GPUs).
  virtual std::unique_ptr<Comm> first_ranks(int k) = 0;
  // A barrier whose waiting ranks sleep instead of spinning: the ranks left out of a subset
  // wait here while the others measure, and must not take CPU time from them.
  virtual void idle_barrier() { barrier(); }

  double max(double v) {
    allreduce_max(&v, 1);
    return v;
  }
  double min(double v) { return -max(-v); }
  bool any(bool v) { return max(v ? 1.0 : 0.0) > 0; }
  std::vector<std::string> allgather_strings(const std::string& mine);
  std::string broadcast_string(std::string s, int root);
  std::vector<double> broadcast_doubles(std::vector<double> v, int root);
  // The first non-empty `error` over ranks, prefixed "rank R: " when the run has several
  // processes; "" when every rank had none. Every rank gets the same answer.
  std::string first_error(const std::string& error);
};

// True when this process was started by an MPI launcher (Open MPI, MPICH/PMI, PMIx).
bool launched_under_mpi();
// Whether this build has MPI.
bool built_with_mpi();

// Under an MPI launcher: MPI_Init and a communicator over MPI_COMM_WORLD (throws ArgError if
// this build lacks MPI). Otherwise a communicator of this process alone.
std::unique_ptr<Comm> make_comm(int* argc, char*** argv);
std::unique_ptr<Comm> make_self_comm();

// Runs `fn` on every rank, catches what it throws, and agrees: if any rank failed, every
// rank throws the first failure (SkipPoint stays SkipPoint, ArgError stays ArgError, anything
// else becomes std::runtime_error), so no rank is left waiting in a later collective.
void collectively(Comm& comm, const std::function<void()>& fn);

}  // namespace pk
