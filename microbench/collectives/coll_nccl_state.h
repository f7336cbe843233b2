#pragma once
// The NCCL communicators and buffers of one process (built here, the NCCL
// implementations in coll_nccl_impl.cu use them). Only built with NCCL.
#include <nccl.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <vector>
#include <string>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/nccl_comms.h"
#include "microbench/collectives/coll_harness.h"
#include "microbench/collectives/coll_nccl.h"

namespace pk::coll {

struct NcclBufs {
  void* user_in = nullptr;
  void* user_out = nullptr;
  void* plain_send = nullptr;  // behind a reshape copy
  void* plain_recv = nullptr;
  void* sym_send = nullptr;  // ncclMemAlloc + symmetric window
  void* sym_recv = nullptr;
  ncclWindow_t win_send = nullptr, win_recv = nullptr;
};

class NcclState {
 public:
  NcclState(Context& ctx, const NcclSizes& sz, const std::vector<NcclConfig>& configs) : ctx_(ctx), sizes_(sz) {
    PeerGroup& g = ctx.group;
    Comm& comm = g.comm();
    const auto& gpus = g.local_gpus();
    if (comm.size() > 1 && gpus.size() != 1)
      throw std::runtime_error("NCCL baselines under MPI need one GPU per process");
    grouped_ = gpus.size() > 1;
    // The default configuration's communicator only when it is asked for (--nccl-configs): an
    // idle communicator's proxy thread is one more thing beside the timed one.
    bool want_default = false;
    for (const NcclConfig& c : configs) want_default |= c.proto.empty() && !c.symmetric;
    if (want_default) comms_ = make_nccl_comms(g);
    // One communicator per forced configuration, NCCL_PROTO / NCCL_ALGO set around its
    // creation only (NCCL reads them then); a failure disables that configuration alone.
    for (const NcclConfig& c : configs) {
      if (c.proto.empty()) continue;
      try {
        ForcedEnv env({{"NCCL_PROTO", c.proto}, {"NCCL_ALGO", c.algo}});
        forced_[c.name] = make_nccl_comms(g);
      } catch (const std::exception& e) {
        forced_error_[c.name] = e.what();
      }
    }
    // The plain baselines' buffers from ncclMemAlloc (cuMem), as nccl-tests allocates its own
    // whenever it is built against NCCL >= 2.19 (its AllocateBuffs), registered nowhere (no -R):
    // NCCL treats cuMem and cudaMalloc buffers differently (registration of captured graphs,
    // NCCL_GRAPH_REGISTER), and the cross-check must read the same kind of memory.
    collectively(comm, [&] {
      each_gpu([&](int, NcclBufs& b) {
        PK_NCCL_CHECK(ncclMemAlloc(&b.user_in, std::max<uint64_t>(sz.user_in, 4096)));
        PK_NCCL_CHECK(ncclMemAlloc(&b.user_out, std::max<uint64_t>(sz.user_out, 4096)));
        if (sz.reshape_send) PK_CUDA_CHECK(cudaMalloc(&b.plain_send, sz.reshape_send));
        if (sz.reshape_recv) PK_CUDA_CHECK(cudaMalloc(&b.plain_recv, sz.reshape_recv));
      });
    });
    // Symmetric windows on a communicator of their own (one per configuration, as nccl-tests
    // runs -R 2 in a process of its own): the default configuration's communicator holds no
    // registered window, as in nccl-tests without -R. A failure disables only nccl_sym.
    bool want_sym = false;
    for (const NcclConfig& c : configs) want_sym |= c.symmetric;
    std::string sym_err = want_sym ? "" : "the symmetric configuration was not asked for (--nccl-configs)";
    if (want_sym) try {
      sym_comms_ = make_nccl_comms(g);
      collectively(comm, [&] {
        each_gpu([&](int, NcclBufs& b) {
          PK_NCCL_CHECK(ncclMemAlloc(&b.sym_send, std::max<uint64_t>(sz.send, 4096)));
          PK_NCCL_CHECK(ncclMemAlloc(&b.sym_recv, std::max<uint64_t>(sz.recv, 4096)));
        });
        PK_NCCL_CHECK(ncclGroupStart());
        std::string err;
        each_gpu([&](int gpu, NcclBufs& b) {
          ncclResult_t r1 = ncclCommWindowRegister(sym_comms_[gpu], b.sym_send, std::max<uint64_t>(sz.send, 4096),
                                                   &b.win_send, NCCL_WIN_COLL_SYMMETRIC);
          ncclResult_t r2 = ncclCommWindowRegister(sym_comms_[gpu], b.sym_recv, std::max<uint64_t>(sz.recv, 4096),
                                                   &b.win_recv, NCCL_WIN_COLL_SYMMETRIC);
          if (err.empty() && (r1 != ncclSuccess || r2 != ncclSuccess))
            err = std::string("ncclCommWindowRegister: ") + ncclGetErrorString(r1 != ncclSuccess ? r1 : r2);
        });
        PK_NCCL_CHECK(ncclGroupEnd());
        if (!err.empty()) throw std::runtime_error(err);
      });
    } catch (const std::exception& e) {
      sym_err = e.what();
    }
    sym_error_ = sym_err;
  }

  ~NcclState() {
    PeerGroup& g = ctx_.group;
    for (auto& [gpu, b] : bufs_) {
      g.set_device(gpu);
      cudaDeviceSynchronize();
    }
    if (sym_error_.empty()) {
      ncclGroupStart();
      for (auto& [gpu, b] : bufs_) {
        g.set_device(gpu);
        if (b.win_send) ncclCommWindowDeregister(sym_comms_[gpu], b.win_send);
        if (b.win_recv) ncclCommWindowDeregister(sym_comms_[gpu], b.win_recv);
      }
      ncclGroupEnd();
    }
    for (auto& [gpu, b] : bufs_) {
      g.set_device(gpu);
      for (void* p : {b.sym_send, b.sym_recv, b.user_in, b.user_out})
        if (p) ncclMemFree(p);
      for (void* p : {b.plain_send, b.plain_recv})
        if (p) cudaFree(p);
    }
    for (auto* m : {&comms_, &sym_comms_})
      for (auto& [gpu, c] : *m) {
        g.set_device(gpu);
        ncclCommFinalize(c);
        ncclCommDestroy(c);
      }
    for (auto& [name, m] : forced_)
      for (auto& [gpu, c] : m) {
        g.set_device(gpu);
        ncclCommFinalize(c);
        ncclCommDestroy(c);
      }
  }

  // The communicator of configuration `c` on `gpu`: one per configuration.
  ncclComm_t comm(const NcclConfig& c, int gpu) {
    if (c.symmetric) return sym_comms_.at(gpu);
    return c.proto.empty() ? comms_.at(gpu) : forced_.at(c.name).at(gpu);
  }
  // "" when configuration `c` has its communicators, else why not.
  std::string config_error(const NcclConfig& c) const {
    if (c.symmetric && !sym_error_.empty()) return "symmetric windows unavailable: " + sym_error_;
    if (c.proto.empty() && !c.symmetric && comms_.empty()) return "configuration " + c.name + " was not set up in this run";
    if (c.proto.empty()) return "";
    if (auto it = forced_error_.find(c.name); it != forced_error_.end())
      return "communicator with NCCL_PROTO=" + c.proto + " NCCL_ALGO=" + c.algo + " failed: " + it->second;
    if (!forced_.count(c.name)) return "configuration " + c.name + " was not set up in this run";
    return "";
  }
  NcclBufs& bufs(int gpu) { return bufs_.at(gpu); }
  const NcclSizes& sizes() const { return sizes_; }
  bool grouped() const { return grouped_; }  // one process drives several GPUs

 private:
  // fn(gpu, its buffers) on every local GPU in turn, that GPU current.
  template <class F>
  void each_gpu(F fn) {
    for (int gpu : ctx_.group.local_gpus()) {
      ctx_.group.set_device(gpu);
      fn(gpu, bufs_[gpu]);
    }
  }
  Context& ctx_;
  NcclSizes sizes_;
  std::map<int, ncclComm_t> comms_, sym_comms_;
  std::map<int, NcclBufs> bufs_;
  std::map<std::string, std::map<int, ncclComm_t>> forced_;  // by NcclConfig::name
  std::map<std::string, std::string> forced_error_;
  std::string sym_error_;
  bool grouped_ = false;

  // Sets environment variables for its lifetime and restores what was there before.
  class ForcedEnv {
   public:
    explicit ForcedEnv(const std::vector<std::pair<std::string, std::string>>& vars) {
      for (const auto& [k, v] : vars) {
        const char* old = std::getenv(k.c_str());
        saved_.push_back({k, old ? std::optional<std::string>(old) : std::nullopt});
        setenv(k.c_str(), v.c_str(), 1);
      }
    }
    ~ForcedEnv() {
      for (const auto& [k, old] : saved_) {
        if (old) setenv(k.c_str(), old->c_str(), 1);
        else unsetenv(k.c_str());
      }
    }
    ForcedEnv(const ForcedEnv&) = delete;
    ForcedEnv& operator=(const ForcedEnv&) = delete;

   private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
  };
};

}  // namespace pk::coll
