#include "microbench/harness/comm.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "microbench/harness/cuda_check.h"

namespace pk {

std::vector<std::string> Comm::allgather_strings(const std::string& mine) {
  const int n = size();
  std::vector<double> len(n, 0.0);
  len[rank()] = static_cast<double>(mine.size());
  allreduce_max(len.data(), n);  // every rank learns every length
  size_t longest = 0;
  for (double l : len) longest = std::max(longest, static_cast<size_t>(l));
  std::vector<char> mine_padded(longest + 1, 0), all((longest + 1) * n, 0);
  std::memcpy(mine_padded.data(), mine.data(), mine.size());
  allgather(mine_padded.data(), all.data(), longest + 1);
  std::vector<std::string> out(n);
  for (int r = 0; r < n; ++r) out[r].assign(all.data() + r * (longest + 1), static_cast<size_t>(len[r]));
  return out;
}

std::string Comm::broadcast_string(std::string s, int root) {
  double len = rank() == root ? static_cast<double>(s.size()) : 0.0;
  len = max(len);
  s.resize(static_cast<size_t>(len));
  if (!s.empty()) broadcast(s.data(), s.size(), root);
  return s;
}

std::vector<double> Comm::broadcast_doubles(std::vector<double> v, int root) {
  double n = rank() == root ? static_cast<double>(v.size()) : 0.0;
  n = max(n);
  v.resize(static_cast<size_t>(n));
  if (!v.empty()) broadcast(v.data(), v.size() * sizeof(double), root);
  return v;
}

std::string Comm::first_error(const std::string& error) {
  if (size() == 1) return error;
  if (!any(!error.empty())) return "";
  const auto all = allgather_strings(error);
  for (int r = 0; r < size(); ++r)
    if (!all[r].empty()) return "rank " + std::to_string(r) + ": " + all[r];
  return "";
}

void collectively(Comm& comm, const std::function<void()>& fn) {
  // Kind codes travel as a prefix so every rank rethrows the same type.
  std::string err;
  try {
    fn();
  } catch (const SkipPoint& e) {
    err = std::string("S") + e.what();
  } catch (const ArgError& e) {
    err = std::string("A") + e.what();
  } catch (const std::exception& e) {
    err = std::string("E") + e.what();
  }
  if (comm.size() == 1) {
    if (err.empty()) return;
  } else {
    if (!comm.any(!err.empty())) return;
    const auto all = comm.allgather_strings(err);
    for (int r = 0; r < comm.size(); ++r)
      if (!all[r].empty()) {
        err = all[r].substr(0, 1) + "rank " + std::to_string(r) + ": " + all[r].substr(1);
        break;
      }
  }
  const char kind = err[0];
  const std::string msg = err.substr(1);
  if (kind == 'S') throw SkipPoint(msg);
  if (kind == 'A') throw ArgError(msg);
  throw std::runtime_error(msg);
}

bool launched_under_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (const char* e = std::getenv(v); e && *e) return true;
  return false;
}

namespace {

class SelfComm final : public Comm {
 public:
  bool is_mpi() const override { return false; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  void barrier() override {}
  void allgather(const void* mine, void* all, size_t bytes) override {
    if (all != mine) std::memmove(all, mine, bytes);
  }
  void broadcast(void*, size_t, int) override {}
  void allreduce_max(double*, int) override {}
  [[noreturn]] void abort(int code) override { std::exit(code); }
  std::unique_ptr<Comm> first_ranks(int k) override { return k >= 1 ? std::make_unique<SelfComm>() : nullptr; }
};

}  // namespace

std::unique_ptr<Comm> make_self_comm() { return std::make_unique<SelfComm>(); }

#ifndef PKBENCH_HAVE_MPI
bool built_with_mpi() { return false; }
std::unique_ptr<Comm> make_comm(int*, char***) {
  if (launched_under_mpi())
    throw ArgError(
        "started by an MPI launcher, but this build has no MPI (install an MPI, e.g. libopenmpi-dev, and rebuild); "
        "run without mpirun for one process driving every GPU");
  return make_self_comm();
}
#endif

}  // namespace pk
