#pragma once
// The NCCL communicators and buffers of one process (coll_nccl.cpp builds them, the NCCL
// implementations in coll_nccl_impl.cu use them). Only built with NCCL.
#include <nccl.h>

#include <fstream>
#include <map>
#include <string>

#include "../harness/cuda_check.h"
#include "../harness/nccl_comms.h"
#include "coll_harness.h"
#include "coll_nccl.h"

namespace pk::coll {

std::string nccl_log_path();

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
  NcclState(Context& ctx, const NcclSizes& sz) : ctx_(ctx), sizes_(sz) {
    PeerGroup& g = ctx.group;
    Comm& comm = g.comm();
    const auto& gpus = g.local_gpus();
    if (comm.size() > 1 && gpus.size() != 1)
      throw std::runtime_error("NCCL baselines under MPI need one GPU per process");
    comms_ = make_nccl_comms(g);
    collectively(comm, [&] {
      for (int gpu : gpus) {
        g.set_device(gpu);
        NcclBufs& b = bufs_[gpu];
        PK_CUDA_CHECK(cudaMalloc(&b.user_in, std::max<uint64_t>(sz.user_in, 4096)));
        PK_CUDA_CHECK(cudaMalloc(&b.user_out, std::max<uint64_t>(sz.user_out, 4096)));
        if (sz.reshape_send) PK_CUDA_CHECK(cudaMalloc(&b.plain_send, sz.reshape_send));
        if (sz.reshape_recv) PK_CUDA_CHECK(cudaMalloc(&b.plain_recv, sz.reshape_recv));
      }
    });
    // Symmetric windows: a failure disables only nccl_sym (its rows say why).
    std::string sym_err;
    try {
      collectively(comm, [&] {
        for (int gpu : gpus) {
          g.set_device(gpu);
          NcclBufs& b = bufs_[gpu];
          PK_NCCL_CHECK(ncclMemAlloc(&b.sym_send, std::max<uint64_t>(sz.send, 4096)));
          PK_NCCL_CHECK(ncclMemAlloc(&b.sym_recv, std::max<uint64_t>(sz.recv, 4096)));
        }
        PK_NCCL_CHECK(ncclGroupStart());
        std::string err;
        for (int gpu : gpus) {
          g.set_device(gpu);
          NcclBufs& b = bufs_[gpu];
          ncclResult_t r1 = ncclCommWindowRegister(comms_[gpu], b.sym_send, std::max<uint64_t>(sz.send, 4096),
                                                   &b.win_send, NCCL_WIN_COLL_SYMMETRIC);
          ncclResult_t r2 = ncclCommWindowRegister(comms_[gpu], b.sym_recv, std::max<uint64_t>(sz.recv, 4096),
                                                   &b.win_recv, NCCL_WIN_COLL_SYMMETRIC);
          if (err.empty() && (r1 != ncclSuccess || r2 != ncclSuccess))
            err = std::string("ncclCommWindowRegister: ") + ncclGetErrorString(r1 != ncclSuccess ? r1 : r2);
        }
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
        if (b.win_send) ncclCommWindowDeregister(comms_[gpu], b.win_send);
        if (b.win_recv) ncclCommWindowDeregister(comms_[gpu], b.win_recv);
      }
      ncclGroupEnd();
    }
    for (auto& [gpu, b] : bufs_) {
      g.set_device(gpu);
      if (b.sym_send) ncclMemFree(b.sym_send);
      if (b.sym_recv) ncclMemFree(b.sym_recv);
      for (void* p : {b.user_in, b.user_out, b.plain_send, b.plain_recv})
        if (p) cudaFree(p);
    }
    for (auto& [gpu, c] : comms_) {
      g.set_device(gpu);
      ncclCommFinalize(c);
      ncclCommDestroy(c);
    }
  }

  ncclComm_t comm(int gpu) { return comms_.at(gpu); }
  NcclBufs& bufs(int gpu) { return bufs_.at(gpu); }
  const NcclSizes& sizes() const { return sizes_; }
  const std::string& sym_error() const { return sym_error_; }
  bool grouped() const { return comms_.size() > 1; }  // one process drives several GPUs

  // Rank 0: the log written since the last call; every rank gets rank 0's text back.
  std::string new_log() {
    std::string text;
    if (ctx_.group.comm().rank() == 0 && !nccl_log_path().empty()) {
      std::ifstream f(nccl_log_path(), std::ios::binary);
      if (f) {
        f.seekg(0, std::ios::end);
        const std::streamoff end = f.tellg();
        if (end > log_offset_) {
          f.seekg(log_offset_);
          text.resize(static_cast<size_t>(end - log_offset_));
          f.read(text.data(), static_cast<std::streamsize>(text.size()));
          log_offset_ = end;
        }
      }
    }
    return text;
  }

 private:
  Context& ctx_;
  NcclSizes sizes_;
  std::map<int, ncclComm_t> comms_;
  std::map<int, NcclBufs> bufs_;
  std::string sym_error_;
  std::streamoff log_offset_ = 0;
};

}  // namespace pk::coll
