// See nvshmem_runtime.h. Compiled into pkbench_nvshmem_runtime (relocatable device code: it
// initialises through libnvshmem_device.a), which the primitives' NVSHMEM style and the
// collectives' NVSHMEM baseline link.
#include "microbench/harness/nvshmem_runtime.h"

#include <dlfcn.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <sys/stat.h>

#include <cstdlib>
#include <stdexcept>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"

namespace pk {
namespace {

void set_default_env(const char* name, const std::string& value) {
  if (!std::getenv(name)) setenv(name, value.c_str(), 0);
}

bool file_exists(const std::string& p) {
  struct stat st{};
  return !p.empty() && stat(p.c_str(), &st) == 0;
}

}  // namespace

std::string nvshmem_host_library_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&nvshmemx_get_uniqueid), &info) || !info.dli_fname) return "";
  std::string f = info.dli_fname;
  const size_t slash = f.rfind('/');
  return slash == std::string::npos ? "" : f.substr(0, slash);
}

NvshmemRuntime::NvshmemRuntime(Comm& comm, bool single_node) : comm_(comm) {
  point_cost::Phase cost("communicator");
  // Defaults only: whatever the user exported wins.
  if (single_node) {
    set_default_env("NVSHMEM_REMOTE_TRANSPORT", "none");
    // The uid plugin is NCCL's socket code: on one node, the loopback interface.
    set_default_env("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "lo");
  }
  set_default_env("NVSHMEM_DISABLE_NVLS", "1");       // never multicast on shared hosts
  set_default_env("NVSHMEM_SYMMETRIC_SIZE", "3G");    // the primitives' heap: ~1.2 GiB (callers may set their own first)
  const std::string dir = nvshmem_host_library_dir();
  if (file_exists(dir + "/nvshmem_bootstrap_uid.so.3"))
    set_default_env("NVSHMEM_BOOTSTRAP_UID_PLUGIN", dir + "/nvshmem_bootstrap_uid.so.3");
  const char* p = std::getenv("NVSHMEM_BOOTSTRAP_UID_PLUGIN");
  plugin_ = p ? p : "nvshmem_bootstrap_uid.so.3 (default search: RPATH $ORIGIN of libnvshmem_host.so.3)";

  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  collectively(comm_, [&] {
    if (comm_.rank() == 0 && nvshmemx_get_uniqueid(&id) != 0) throw std::runtime_error("nvshmemx_get_uniqueid failed");
  });
  comm_.broadcast(&id, sizeof id, 0);
  std::string err;
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (nvshmemx_set_attr_uniqueid_args(comm_.rank(), comm_.size(), &id, &attr) != 0) {
    err = "nvshmemx_set_attr_uniqueid_args failed";
  } else {
    // nvshmemx_init_attr() calls exit() on failure; its body without the exit, so that a
    // failure becomes an error every rank agrees on.
    int provided = 0;
    nvshmemi_version_t v = {NVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION};
    const int st = nvshmemi_init_thread(NVSHMEM_THREAD_SERIALIZED, &provided, NVSHMEMX_INIT_WITH_UNIQUEID, &attr, v);
    if (st != 0) err = "nvshmemi_init_thread (NVSHMEMX_INIT_WITH_UNIQUEID) returned " + std::to_string(st);
    else if (nvshmem_my_pe() != comm_.rank() || nvshmem_n_pes() != comm_.size())
      err = "NVSHMEM PE " + std::to_string(nvshmem_my_pe()) + "/" + std::to_string(nvshmem_n_pes()) +
            " does not match rank " + std::to_string(comm_.rank()) + "/" + std::to_string(comm_.size());
  }
  err = comm_.first_error(err);
  if (!err.empty()) throw std::runtime_error(err);
}

NvshmemRuntime::~NvshmemRuntime() {
  cudaDeviceSynchronize();
  for (void* p : allocs_) nvshmem_free(p);  // collective, same order on every PE
  nvshmem_finalize();
}

int NvshmemRuntime::my_pe() const { return nvshmem_my_pe(); }
int NvshmemRuntime::n_pes() const { return nvshmem_n_pes(); }

void* NvshmemRuntime::alloc(uint64_t bytes, const std::string& what) {
  void* p = nvshmem_malloc(bytes);
  std::string err;
  if (!p) {
    err = "nvshmem_malloc of " + std::to_string(bytes) + " B for " + what +
          " failed (NVSHMEM_SYMMETRIC_SIZE=" + (std::getenv("NVSHMEM_SYMMETRIC_SIZE") ? std::getenv("NVSHMEM_SYMMETRIC_SIZE") : "?") + ")";
  } else {
    allocs_.push_back(p);
    if (cudaMemset(p, 0, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) err = "zeroing " + what;
  }
  err = comm_.first_error(err);
  if (!err.empty()) throw std::runtime_error(err);
  nvshmem_barrier_all();  // every PE's copy is zeroed before anyone writes into it
  return p;
}

void* NvshmemRuntime::peer_address(const void* sym, int pe) const { return nvshmem_ptr(sym, pe); }

std::string nvshmem_runtime_version() {
  // The loaded libnvshmem_host's own answer (the wheel on the GPU machine may not be the
  // one the headers came from); nvshmem_info_get_version is the OpenSHMEM spec it implements.
  int major = 0, minor = 0, patch = 0, spec_major = 0, spec_minor = 0;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  nvshmem_info_get_version(&spec_major, &spec_minor);
  std::string v = "NVSHMEM " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) +
                  " (OpenSHMEM " + std::to_string(spec_major) + "." + std::to_string(spec_minor);
  if (major != NVSHMEM_VENDOR_MAJOR_VERSION || minor != NVSHMEM_VENDOR_MINOR_VERSION ||
      patch != NVSHMEM_VENDOR_PATCH_VERSION)
    v += "; built against headers " + std::to_string(NVSHMEM_VENDOR_MAJOR_VERSION) + "." +
         std::to_string(NVSHMEM_VENDOR_MINOR_VERSION) + "." + std::to_string(NVSHMEM_VENDOR_PATCH_VERSION);
  return v + ")";
}

std::string NvshmemRuntime::describe() const {
  return nvshmem_runtime_version() + ", " + std::to_string(n_pes()) + " PEs, host library in " +
         nvshmem_host_library_dir() + ", bootstrap plugin " + plugin_ + ", NVSHMEM_REMOTE_TRANSPORT=" +
         (std::getenv("NVSHMEM_REMOTE_TRANSPORT") ? std::getenv("NVSHMEM_REMOTE_TRANSPORT") : "(unset)");
}

}  // namespace pk
