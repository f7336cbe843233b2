// The MPI communicator: MPI_COMM_WORLD (or a subset of its first ranks), with node-local ranks
// from MPI_COMM_TYPE_SHARED.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

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
  // MPI_COMM_WORLD, MPI initialised here if it was not.
  MpiComm(int* argc, char*** argv) : owns_mpi_(true) {
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) check(MPI_Init(argc, argv), "MPI_Init");
    // Errors come back as codes (and become exceptions) instead of aborting inside MPI.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    init(MPI_COMM_WORLD);
  }
  // A subset's communicator (first_ranks), freed with this object; MPI stays up.
  explicit MpiComm(MPI_Comm sub) : owns_mpi_(false) {
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    init(sub);
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    MPI_Comm_free(&node_);
    if (owns_mpi_) MPI_Finalize();
    else MPI_Comm_free(&comm_);
  }
  bool is_mpi() const override { return true; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  void barrier() override { check(MPI_Barrier(comm_), "MPI_Barrier"); }
  void idle_barrier() override {
    MPI_Request req;
    check(MPI_Ibarrier(comm_, &req), "MPI_Ibarrier");
    for (int done = 0; !done;) {
      check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void allgather(const void* mine, void* all, size_t bytes) override {
    check(MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all, static_cast<int>(bytes), MPI_BYTE, comm_),
          "MPI_Allgather");
  }
  void broadcast(void* data, size_t bytes, int root) override {
    check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_), "MPI_Bcast");
  }
  void allreduce_max(double* v, int n) override {
    check(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  }
  [[noreturn]] void abort(int code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);  // a subset's failure ends the whole run
    std::_Exit(code);
  }
  std::unique_ptr<Comm> first_ranks(int k) override {
    MPI_Comm sub = MPI_COMM_NULL;
    check(MPI_Comm_split(comm_, rank_ < k ? 0 : MPI_UNDEFINED, rank_, &sub), "MPI_Comm_split");
    if (sub == MPI_COMM_NULL) return nullptr;
    return std::make_unique<MpiComm>(sub);
  }

 private:
  void init(MPI_Comm c) {
    comm_ = c;
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_), "split_type");
    MPI_Comm_rank(node_, &local_rank_);
    MPI_Comm_size(node_, &local_size_);
  }
  bool owns_mpi_;
  MPI_Comm comm_ = MPI_COMM_NULL;
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
