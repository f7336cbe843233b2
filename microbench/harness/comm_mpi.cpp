// The MPI communicator: MPI_COMM_WORLD, with node-local ranks from MPI_COMM_TYPE_SHARED.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "microbench/harness/comm.h"
#include "microbench/harness/cuda_check.h"

namespace pk {
namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string(what) + ": " + msg);
  }
}

class MpiComm final : public Comm {
 public:
  MpiComm(int* argc, char*** argv) {
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) check(MPI_Init(argc, argv), "MPI_Init");
    // Errors come back as codes (and become exceptions) instead of aborting inside MPI.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_), "split_type");
    MPI_Comm_rank(node_, &local_rank_);
    MPI_Comm_size(node_, &local_size_);
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      MPI_Comm_free(&node_);
      MPI_Finalize();
    }
  }
  bool is_mpi() const override { return true; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  void allgather(const void* mine, void* all, size_t bytes) override {
    check(MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all, static_cast<int>(bytes), MPI_BYTE,
                        MPI_COMM_WORLD),
          "MPI_Allgather");
  }
  void broadcast(void* data, size_t bytes, int root) override {
    check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  void allreduce_max(double* v, int n) override {
    check(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  }
  [[noreturn]] void abort(int code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  MPI_Comm node_ = MPI_COMM_NULL;
};

}  // namespace

bool built_with_mpi() { return true; }

std::unique_ptr<Comm> make_comm(int* argc, char*** argv) {
  if (!launched_under_mpi()) return make_self_comm();
  return std::make_unique<MpiComm>(argc, argv);
}

}  // namespace pk
