#include "microbench/harness/peer_group.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/driver_api.h"
#include "microbench/harness/fd_passing.h"

namespace pk {

// ---------------------------------------------------------------- modes and small helpers

const std::vector<std::string>& peer_mode_names() {
  static const std::vector<std::string> v = {"single", "ipc", "vmm", "virtual"};
  return v;
}

PeerMode parse_peer_mode(const std::string& s) {
  if (s == "single") return PeerMode::single;
  if (s == "ipc") return PeerMode::ipc;
  if (s == "vmm") return PeerMode::vmm;
  if (s == "virtual") return PeerMode::virt;
  throw ArgError("--peer-mode: unknown mode '" + s + "' (known: single, ipc, vmm, virtual)");
}

std::string peer_mode_name(PeerMode m) { return peer_mode_names().at(static_cast<int>(m)); }

PeerMode default_peer_mode(bool under_mpi) { return under_mpi ? PeerMode::ipc : PeerMode::single; }

void check_peer_mode(PeerMode m, const Comm& comm) {
  if (m == PeerMode::single && comm.size() > 1)
    throw ArgError("--peer-mode=single drives every GPU from one process, but this run has " +
                   std::to_string(comm.size()) + " processes: use --peer-mode=ipc or vmm under mpirun");
  if (m == PeerMode::virt && comm.size() > 1)
    throw ArgError("--peer-mode=virtual runs every rank in one process on one GPU, but this run has " +
                   std::to_string(comm.size()) + " processes: start it without mpirun");
  if (m == PeerMode::virt) return;
  if (m != PeerMode::single && !comm.is_mpi())
    throw ArgError("--peer-mode=" + peer_mode_name(m) +
                   " needs one process per GPU: start it with mpirun -np <GPUs> (as root add --allow-run-as-root)");
}

int default_virtual_ranks() {
  const char* v = std::getenv("PKBENCH_VIRTUAL_RANKS");
  if (!v || !*v) return 2;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end || n < 2 || n > kMaxGpus)
    throw ArgError("PKBENCH_VIRTUAL_RANKS='" + std::string(v) + "': need 2 to " + std::to_string(kMaxGpus));
  return static_cast<int>(n);
}

void check_virtual_ranks(PeerMode m, int ranks) {
  if (m == PeerMode::virt) {
    if (ranks < 2 || ranks > kMaxGpus)
      throw ArgError("--ranks: --peer-mode=virtual needs 2 to " + std::to_string(kMaxGpus) + " ranks, got " +
                     std::to_string(ranks));
  } else if (ranks != 0) {
    throw ArgError("--ranks: only --peer-mode=virtual takes a rank count (other modes have one rank per GPU)");
  }
}

VirtualPlan plan_virtual_ranks(int ranks, int device_sms, int min_partition_sms, int alignment_sms) {
  if (ranks < 2 || ranks > kMaxGpus) throw ArgError("--ranks: " + std::to_string(ranks) + " is not in 2.." + std::to_string(kMaxGpus));
  const int align = std::max(1, alignment_sms), floor_sms = std::max({1, min_partition_sms, align});
  int per = device_sms / ranks;
  per -= per % align;
  if (per < floor_sms)
    throw ArgError("--ranks: " + std::to_string(ranks) + " virtual ranks need " + std::to_string(ranks) + " x " +
                   std::to_string(floor_sms) + " SMs (the green-context minimum), but the GPU has " +
                   std::to_string(device_sms));
  return VirtualPlan{ranks, per, device_sms - per * ranks};
}

uint64_t round_up_to_granularity(uint64_t bytes, uint64_t g) {
  if (g == 0) throw std::invalid_argument("allocation granularity is 0");
  if (bytes == 0) return g;
  return (bytes + g - 1) / g * g;
}

const std::array<char*, kMaxGpus>& SymBuf::row(int from) const {
  auto it = rows_.find(from);
  if (it == rows_.end())
    throw std::logic_error("symmetric buffer: GPU" + std::to_string(from) + " is not driven by this process");
  return it->second;
}

char* SymBuf::at(int from, int owner) const {
  if (owner < 0 || owner >= size_) throw ArgError("GPU " + std::to_string(owner) + " is not in the group");
  char* p = row(from)[owner];
  if (!p) throw SkipPoint("GPU" + std::to_string(from) + " cannot reach GPU" + std::to_string(owner) + "'s memory");
  return p;
}

// ---------------------------------------------------------------- the group's topology

namespace {

// One rank's GPU as it travels between processes.
struct GpuRecord {
  char name[96];
  char bus[32];
  char host[64];
  int32_t ordinal, local_rank, cc_major, cc_minor, sm_count, max_threads_per_sm, max_blocks_per_sm, sm_clock_max_mhz,
      nvlink_active_links, nvlink_version;
  int64_t l2, mem, smem_sm, smem_optin, smem_reserved;
  double nvlink_link_gbps;
};

void copy_str(char* dst, size_t n, const std::string& s) {
  std::memset(dst, 0, n);
  std::memcpy(dst, s.data(), std::min(n - 1, s.size()));
}

std::string host_name() {
  char h[64] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

}  // namespace

Topology gather_topology(Comm& comm, const Topology& local, int my_ordinal, std::vector<int>* ordinals) {
  const GpuInfo& g = local.gpus.at(my_ordinal);
  GpuRecord mine{};
  copy_str(mine.name, sizeof mine.name, g.name);
  copy_str(mine.bus, sizeof mine.bus, g.pci_bus_id);
  copy_str(mine.host, sizeof mine.host, host_name());
  mine.ordinal = my_ordinal;
  mine.local_rank = comm.local_rank();
  mine.cc_major = g.cc_major;
  mine.cc_minor = g.cc_minor;
  mine.sm_count = g.sm_count;
  mine.max_threads_per_sm = g.max_threads_per_sm;
  mine.max_blocks_per_sm = g.max_blocks_per_sm;
  mine.sm_clock_max_mhz = g.sm_clock_max_mhz;
  mine.nvlink_active_links = g.nvlink_active_links;
  mine.nvlink_version = g.nvlink_version;
  mine.l2 = g.l2_bytes;
  mine.mem = g.global_mem_bytes;
  mine.smem_sm = g.smem_per_sm_bytes;
  mine.smem_optin = g.smem_per_block_optin_bytes;
  mine.smem_reserved = g.smem_reserved_per_block_bytes;
  mine.nvlink_link_gbps = g.nvlink_link_gbps;
  const int n = comm.size();
  std::vector<GpuRecord> all(n);
  comm.allgather(&mine, all.data(), sizeof mine);

  Topology t;
  t.driver_version = local.driver_version;
  t.cuda_runtime_version = local.cuda_runtime_version;
  t.cuda_driver_version = local.cuda_driver_version;
  if (ordinals) ordinals->clear();
  for (int r = 0; r < n; ++r) {
    const GpuRecord& x = all[r];
    GpuInfo gi;
    gi.ordinal = r;  // group numbering: the rank
    gi.name = x.name;
    gi.pci_bus_id = x.bus;
    gi.cc_major = x.cc_major;
    gi.cc_minor = x.cc_minor;
    gi.sm_count = x.sm_count;
    gi.l2_bytes = x.l2;
    gi.global_mem_bytes = x.mem;
    gi.smem_per_sm_bytes = x.smem_sm;
    gi.smem_per_block_optin_bytes = x.smem_optin;
    gi.smem_reserved_per_block_bytes = x.smem_reserved;
    gi.max_threads_per_sm = x.max_threads_per_sm;
    gi.max_blocks_per_sm = x.max_blocks_per_sm;
    gi.sm_clock_max_mhz = x.sm_clock_max_mhz;
    gi.nvlink_active_links = x.nvlink_active_links;
    gi.nvlink_link_gbps = x.nvlink_link_gbps;
    gi.nvlink_version = x.nvlink_version;
    gi.host = x.host;
    gi.local_rank = x.local_rank;
    t.gpus.push_back(gi);
    if (ordinals) ordinals->push_back(x.ordinal);
  }
  // Two GPUs in one process (same node, same bus id) is a launch mistake.
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (t.gpus[a].host == t.gpus[b].host && t.gpus[a].pci_bus_id == t.gpus[b].pci_bus_id)
        throw ArgError("ranks " + std::to_string(a) + " and " + std::to_string(b) + " both drive GPU " +
                       t.gpus[a].pci_bus_id + ": start at most one rank per GPU of a node");
  // My row of the access matrix: same node, and peer access where the driver can tell.
  std::vector<char> row(n, 0), rows(static_cast<size_t>(n) * n, 0);
  for (int b = 0; b < n; ++b) {
    if (b == comm.rank()) continue;
    if (t.gpus[b].host != t.gpus[comm.rank()].host) continue;  // other node: NCCL's business
    int peer_dev = -1;
    for (const auto& lg : local.gpus)
      if (lg.pci_bus_id == t.gpus[b].pci_bus_id) peer_dev = lg.ordinal;
    int ok = 1;  // not visible here: assume reachable; the import itself will say otherwise
    if (peer_dev >= 0) PK_CUDA_CHECK(cudaDeviceCanAccessPeer(&ok, my_ordinal, peer_dev));
    row[b] = ok ? 1 : 0;
  }
  comm.allgather(row.data(), rows.data(), n);
  t.peer_access.assign(n, std::vector<bool>(n, false));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) t.peer_access[a][b] = rows[static_cast<size_t>(a) * n + b] != 0;
  return t;
}

// ---------------------------------------------------------------- back ends

class SymmetricBackend {
 public:
  virtual ~SymmetricBackend() = default;
  virtual SymBuf alloc(uint64_t bytes, const std::string& what) = 0;
};

namespace {

class SingleBackend final : public SymmetricBackend {
 public:
  explicit SingleBackend(const PeerGroup& g) : g_(g) {}
  ~SingleBackend() override {
    for (auto& [gpu, p] : allocs_) {
      g_.set_device(gpu);
      cudaFree(p);
    }
  }
  SymBuf alloc(uint64_t bytes, const std::string& what) override {
    const int n = g_.size();
    std::vector<char*> base(n, nullptr);
    for (int gpu = 0; gpu < n; ++gpu) {
      g_.set_device(gpu);
      void* p = nullptr;
      const cudaError_t e = cudaMalloc(&p, bytes);
      if (e != cudaSuccess) {
        cudaGetLastError();
        throw CudaError("cudaMalloc of " + std::to_string(bytes) + " B for " + what + " on GPU" + std::to_string(gpu) +
                        ": " + cudaGetErrorString(e));
      }
      allocs_.emplace_back(gpu, p);
      base[gpu] = static_cast<char*>(p);
    }
    SymBuf b(bytes, n);
    for (int from = 0; from < n; ++from) {
      std::array<char*, kMaxGpus> row{};
      for (int owner = 0; owner < n; ++owner) row[owner] = g_.can_access(from, owner) ? base[owner] : nullptr;
      b.set_row(from, row);
    }
    return b;
  }

 private:
  const PeerGroup& g_;
  std::vector<std::pair<int, void*>> allocs_;
};

// Virtual ranks: rank r's copy is its own cudaMalloc on the one GPU, and every rank reaches
// every copy directly (one address space).
class VirtualBackend final : public SymmetricBackend {
 public:
  explicit VirtualBackend(const PeerGroup& g) : g_(g) {}
  ~VirtualBackend() override {
    cudaDeviceSynchronize();
    for (void* p : allocs_) cudaFree(p);
  }
  SymBuf alloc(uint64_t bytes, const std::string& what) override {
    const int n = g_.size();
    std::array<char*, kMaxGpus> row{};
    for (int r = 0; r < n; ++r) {
      void* p = nullptr;
      const cudaError_t e = cudaMalloc(&p, bytes);
      if (e != cudaSuccess) {
        cudaGetLastError();
        throw CudaError("cudaMalloc of " + std::to_string(bytes) + " B for " + what + " of virtual rank " +
                        std::to_string(r) + ": " + cudaGetErrorString(e));
      }
      allocs_.push_back(p);
      row[r] = static_cast<char*>(p);
    }
    SymBuf b(bytes, n);
    for (int from = 0; from < n; ++from) b.set_row(from, row);
    return b;
  }

 private:
  const PeerGroup& g_;
  std::vector<void*> allocs_;
};

class IpcBackend final : public SymmetricBackend {
 public:
  explicit IpcBackend(PeerGroup& g) : g_(g) {}
  ~IpcBackend() override {
    // Importers close before the exporter frees (freeing first is undefined behaviour).
    const int me = g_.local_gpus().at(0);
    g_.set_device(me);
    for (void* p : imported_) cudaIpcCloseMemHandle(p);
    try {
      g_.barrier();
    } catch (...) {
    }
    for (void* p : own_) cudaFree(p);
  }
  SymBuf alloc(uint64_t bytes, const std::string& what) override {
    const int me = g_.local_gpus().at(0), n = g_.size();
    std::vector<cudaIpcMemHandle_t> handles(n);
    char* mine = nullptr;
    collectively(g_.comm(), [&] {
      g_.set_device(me);
      void* p = nullptr;
      PK_CUDA_CHECK(cudaMalloc(&p, bytes));
      own_.push_back(p);
      mine = static_cast<char*>(p);
      PK_CUDA_CHECK(cudaIpcGetMemHandle(&handles[me], p));
    });
    cudaIpcMemHandle_t my_handle = handles[me];
    g_.comm().allgather(&my_handle, handles.data(), sizeof(cudaIpcMemHandle_t));
    std::array<char*, kMaxGpus> row{};
    row[me] = mine;
    collectively(g_.comm(), [&] {
      for (int owner = 0; owner < n; ++owner) {
        if (owner == me || !g_.can_access(me, owner)) continue;
        void* p = nullptr;
        const cudaError_t e = cudaIpcOpenMemHandle(&p, handles[owner], cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
          cudaGetLastError();
          throw CudaError("cudaIpcOpenMemHandle of GPU" + std::to_string(owner) + "'s " + what + ": " +
                          cudaGetErrorString(e));
        }
        imported_.push_back(p);
        row[owner] = static_cast<char*>(p);
      }
    });
    SymBuf b(bytes, n);
    b.set_row(me, row);
    return b;
  }

 private:
  PeerGroup& g_;
  std::vector<void*> own_, imported_;
};

class VmmBackend final : public SymmetricBackend {
 public:
  explicit VmmBackend(PeerGroup& g) : g_(g) {
    const auto& d = driver::api();
    me_ = g_.local_gpus().at(0);
    g_.set_device(me_);
    PK_CUDA_CHECK(cudaFree(nullptr));  // the primary context the driver calls use
    PK_CU_CHECK(d.cuDeviceGet(&dev_, g_.device_ordinal(me_)));
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = dev_;
    prop_.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    PK_CU_CHECK(d.cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    granularity_ = static_cast<uint64_t>(g_.comm().max(static_cast<double>(gran)));  // one size on every rank
    // A socket name no other job on this node uses: rank 0's pid and start time.
    std::string prefix;
    if (g_.comm().rank() == 0)
      prefix = "pkbench." + std::to_string(getpid()) + "." +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    prefix = g_.comm().broadcast_string(prefix, 0);
    collectively(g_.comm(), [&] { channel_ = std::make_unique<FdChannel>(prefix, g_.comm().local_rank()); });
    g_.barrier();  // every socket is bound before anyone sends
    for (int r = 0; r < g_.size(); ++r)
      if (g_.topology().gpus[r].host == g_.topology().gpus[me_].host) {
        node_ranks_.push_back(r);
        node_local_.push_back(g_.topology().gpus[r].local_rank);
      }
  }
  ~VmmBackend() override {
    const auto& d = driver::api();
    g_.set_device(me_);
    cudaDeviceSynchronize();
    for (auto& [va, size] : mappings_) {
      d.cuMemUnmap(va, size);
      d.cuMemAddressFree(va, size);
    }
  }
  SymBuf alloc(uint64_t bytes, const std::string& what) override {
    const auto& d = driver::api();
    const uint64_t size = round_up_to_granularity(bytes, granularity_);
    const int n = g_.size();
    CUmemGenericAllocationHandle h = 0;
    int fd = -1;
    std::array<char*, kMaxGpus> row{};
    collectively(g_.comm(), [&] {
      g_.set_device(me_);
      PK_CU_CHECK(d.cuMemCreate(&h, size, &prop_, 0));
      PK_CU_CHECK(d.cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
      row[me_] = map(h, size);
    });
    std::vector<int> got;
    try {
      got = exchange_fds(g_.comm(), *channel_, node_local_, g_.comm().local_rank(), fd, ++tag_);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    PK_CU_CHECK(d.cuMemRelease(h));  // the mapping keeps the memory alive
    collectively(g_.comm(), [&] {
      for (size_t i = 0; i < node_ranks_.size(); ++i) {
        const int owner = node_ranks_[i], l = node_local_[i];
        if (owner == me_) continue;
        const int pfd = l < static_cast<int>(got.size()) ? got[l] : -1;
        if (pfd < 0) throw std::runtime_error("no descriptor for " + what + " from GPU" + std::to_string(owner));
        got[l] = -1;
        CUmemGenericAllocationHandle ph = 0;
        const CUresult r = d.cuMemImportFromShareableHandle(&ph, reinterpret_cast<void*>(static_cast<uintptr_t>(pfd)),
                                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        ::close(pfd);  // imported (or failed): the descriptor is no longer needed
        driver::check(r, "cuMemImportFromShareableHandle");
        if (g_.can_access(me_, owner)) row[owner] = map(ph, size);
        PK_CU_CHECK(d.cuMemRelease(ph));
      }
    });
    for (int f : got)
      if (f >= 0) ::close(f);
    (void)n;
    SymBuf b(bytes, g_.size());
    b.set_row(me_, row);
    return b;
  }

 private:
  // Reserves address space, maps the allocation and lets this GPU read and write it.
  char* map(CUmemGenericAllocationHandle h, uint64_t size) {
    const auto& d = driver::api();
    CUdeviceptr va = 0;
    PK_CU_CHECK(d.cuMemAddressReserve(&va, size, granularity_, 0, 0));
    const CUresult r = d.cuMemMap(va, size, 0, h, 0);
    if (r != CUDA_SUCCESS) {
      d.cuMemAddressFree(va, size);
      driver::check(r, "cuMemMap");
    }
    mappings_.emplace_back(va, size);
    CUmemAccessDesc acc{};
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = dev_;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    PK_CU_CHECK(d.cuMemSetAccess(va, size, &acc, 1));
    return reinterpret_cast<char*>(va);
  }

  PeerGroup& g_;
  int me_ = 0;
  CUdevice dev_ = 0;
  CUmemAllocationProp prop_{};
  uint64_t granularity_ = 0;
  uint64_t tag_ = 0;
  std::unique_ptr<FdChannel> channel_;
  std::vector<int> node_ranks_, node_local_;
  std::vector<std::pair<CUdeviceptr, size_t>> mappings_;
};

}  // namespace

// ---------------------------------------------------------------- the group

// ---------------------------------------------------------------- virtual ranks

struct PeerGroup::GreenRanks {
  std::vector<CUgreenCtx> green;
  std::vector<CUcontext> ctx;  // the green contexts as CUcontexts (cuCtxFromGreenCtx)
  ~GreenRanks() {
    cudaSetDevice(0);  // the primary context current again before the green ones go
    for (CUgreenCtx g : green) driver::green_api().cuGreenCtxDestroy(g);
  }
};

namespace {

// Splits GPU 0's SMs into `ranks` equal green contexts; returns each share's SM count.
std::vector<int> make_green_ranks(int ranks, std::vector<CUgreenCtx>* green, std::vector<CUcontext>* ctx) {
  const auto& d = driver::api();
  const auto& ga = driver::green_api();
  PK_CUDA_CHECK(cudaSetDevice(0));
  PK_CUDA_CHECK(cudaFree(nullptr));  // the primary context first: green contexts retain it
  CUdevice dev = 0;
  PK_CU_CHECK(d.cuDeviceGet(&dev, 0));
  CUdevResource all{};
  PK_CU_CHECK(ga.cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  const VirtualPlan plan = plan_virtual_ranks(ranks, static_cast<int>(all.sm.smCount),
                                              static_cast<int>(all.sm.minSmPartitionSize),
                                              static_cast<int>(all.sm.smCoscheduledAlignment));
  std::vector<CUdevResource> groups(ranks);
  unsigned got = static_cast<unsigned>(ranks);
  CUdevResource rest{};
  PK_CU_CHECK(ga.cuDevSmResourceSplitByCount(groups.data(), &got, &all, &rest, 0,
                                             static_cast<unsigned>(plan.sms_per_rank)));
  if (got < static_cast<unsigned>(ranks))
    throw ArgError("--ranks: the driver split " + std::to_string(all.sm.smCount) + " SMs into only " +
                   std::to_string(got) + " groups of " + std::to_string(plan.sms_per_rank));
  std::vector<int> sms;
  for (int r = 0; r < ranks; ++r) {
    CUdevResourceDesc desc = nullptr;
    PK_CU_CHECK(ga.cuDevResourceGenerateDesc(&desc, &groups[r], 1));
    CUgreenCtx g = nullptr;
    PK_CU_CHECK(ga.cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    green->push_back(g);
    CUcontext c = nullptr;
    PK_CU_CHECK(ga.cuCtxFromGreenCtx(&c, g));
    ctx->push_back(c);
    sms.push_back(static_cast<int>(groups[r].sm.smCount));
  }
  return sms;
}

}  // namespace

PeerGroup::PeerGroup(Comm& comm, PeerMode mode, int virtual_ranks, int first_gpus) : comm_(comm), mode_(mode) {
  check_peer_mode(mode, comm);
  if (mode == PeerMode::virt && virtual_ranks == 0) virtual_ranks = default_virtual_ranks();
  check_virtual_ranks(mode, virtual_ranks);
  if (mode == PeerMode::virt) {
    Topology phys = discover_topology();
    if (phys.count() == 0) throw std::runtime_error("no GPU: " + phys.no_gpu_reason);
    green_ = std::make_unique<GreenRanks>();
    const std::vector<int> sms = make_green_ranks(virtual_ranks, &green_->green, &green_->ctx);
    topo_ = phys;
    topo_.gpus.clear();
    for (int r = 0; r < virtual_ranks; ++r) {
      GpuInfo gi = phys.gpus.at(0);
      gi.ordinal = r;
      gi.sm_count = sms[r];
      gi.host = "";
      // Peers are the same GPU: no NVLink between them, and no line rate to quote.
      gi.nvlink_active_links = 0;
      gi.nvlink_link_gbps = 0;
      topo_.gpus.push_back(gi);
      local_.push_back(r);
      owner_.push_back(0);
      ordinal_.push_back(0);
    }
    topo_.peer_access.assign(virtual_ranks, std::vector<bool>(virtual_ranks, true));
    backend_ = std::make_unique<VirtualBackend>(*this);
    set_device(0);
    return;
  }
  if (mode == PeerMode::single) {
    topo_ = discover_topology();
    if (topo_.count() == 0) throw std::runtime_error("no GPU: " + topo_.no_gpu_reason);
    if (first_gpus > topo_.count())
      throw ArgError("a group of the first " + std::to_string(first_gpus) + " GPUs, but this machine has " +
                     std::to_string(topo_.count()));
    if (first_gpus > 0) {  // a subset of a GPU-count sweep: the first GPUs only
      topo_.gpus.resize(first_gpus);
      topo_.peer_access.resize(first_gpus);
      for (auto& row : topo_.peer_access) row.resize(first_gpus);
    }
    if (topo_.count() > kMaxGpus)
      throw ArgError("this machine has " + std::to_string(topo_.count()) + " GPUs; pkbench handles at most " +
                     std::to_string(kMaxGpus));
    for (int g = 0; g < topo_.count(); ++g) {
      local_.push_back(g);
      owner_.push_back(0);
      ordinal_.push_back(g);
      topo_.gpus[g].host = "";
    }
    for (int a = 0; a < topo_.count(); ++a) {
      set_device(a);
      for (int b = 0; b < topo_.count(); ++b) {
        if (a == b || !topo_.peer_access[a][b]) continue;
        const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
        else PK_CUDA_CHECK(e);
      }
    }
    backend_ = std::make_unique<SingleBackend>(*this);
    return;
  }
  // One process per GPU: this rank's GPU is the local_rank-th visible one, or the only one
  // when the launcher gives each rank a single visible GPU.
  if (comm.size() > kMaxGpus)
    throw ArgError("this run has " + std::to_string(comm.size()) + " ranks; pkbench handles at most " +
                   std::to_string(kMaxGpus) + " GPUs");
  Topology local = discover_topology();
  std::string err;
  int my_ordinal = 0;
  if (local.count() == 0) err = "no GPU visible: " + local.no_gpu_reason;
  else if (local.count() == 1) my_ordinal = 0;
  else if (comm.local_rank() < local.count()) my_ordinal = comm.local_rank();
  else
    err = "local rank " + std::to_string(comm.local_rank()) + " but only " + std::to_string(local.count()) +
          " GPUs are visible: start at most one rank per GPU";
  err = comm.first_error(err);
  if (!err.empty()) throw std::runtime_error(err);
  topo_ = gather_topology(comm, local, my_ordinal, &ordinal_);
  for (int r = 0; r < topo_.count(); ++r) owner_.push_back(r);
  local_ = {comm.rank()};
  set_device(comm.rank());
  if (mode == PeerMode::ipc) backend_ = std::make_unique<IpcBackend>(*this);
  else backend_ = std::make_unique<VmmBackend>(*this);
}

PeerGroup::~PeerGroup() {
  backend_.reset();
  green_.reset();
}

bool PeerGroup::drives(int gpu) const { return std::find(local_.begin(), local_.end(), gpu) != local_.end(); }

int PeerGroup::owner_rank(int gpu) const {
  if (gpu < 0 || gpu >= size()) throw ArgError("GPU " + std::to_string(gpu) + " is not in the group");
  return owner_[gpu];
}

int PeerGroup::device_ordinal(int gpu) const {
  if (!drives(gpu))
    throw std::logic_error("GPU" + std::to_string(gpu) + " is driven by rank " + std::to_string(owner_rank(gpu)) +
                           ", not by this process");
  return ordinal_[gpu];
}

void PeerGroup::set_device(int gpu) const {
  // Only when it changes something: this runs before every enqueue of a timed host loop (the
  // nccl-tests method), and nccl-tests makes no such call per collective.
  const int ordinal = device_ordinal(gpu);
  int current = -1;
  if (green_ || cudaGetDevice(&current) != cudaSuccess || current != ordinal) PK_CUDA_CHECK(cudaSetDevice(ordinal));
  // A virtual rank's green context current: what the runtime creates or launches on the
  // default stream from here on runs on that rank's SMs (memory is the primary context's).
  if (green_) PK_CU_CHECK(driver::green_api().cuCtxSetCurrent(green_->ctx.at(gpu)));
}

cudaStream_t PeerGroup::create_stream(int gpu, int priority) const {
  cudaStream_t s = nullptr;
  if (green_) {
    CUstream cs = nullptr;
    PK_CU_CHECK(driver::green_api().cuGreenCtxStreamCreate(&cs, green_->green.at(gpu), CU_STREAM_NON_BLOCKING, priority));
    return reinterpret_cast<cudaStream_t>(cs);
  }
  set_device(gpu);
  PK_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
  return s;
}

std::string PeerGroup::library_skip_reason(const std::string& library) const {
  if (mode_ == PeerMode::virt)
    return library + " needs one GPU per rank (it refuses two ranks on one device): not run with --peer-mode=virtual";
  return "";
}

SymBuf PeerGroup::alloc(uint64_t bytes, const std::string& what) { return backend_->alloc(bytes, what); }

}  // namespace pk
