#include "peer_group.h"

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace pk {
namespace {

class SingleProcessGroup final : public PeerGroup {
 public:
  explicit SingleProcessGroup(const Topology& t) : topo_(t) {
    for (int a = 0; a < t.count(); ++a) {
      PK_CUDA_CHECK(cudaSetDevice(a));
      for (int b = 0; b < t.count(); ++b) {
        if (a == b || !t.peer_access[a][b]) continue;
        cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
        else PK_CUDA_CHECK(e);
      }
    }
  }
  ~SingleProcessGroup() override {
    for (auto& [dev, p] : allocs_) {
      cudaSetDevice(dev);
      cudaFree(p);
    }
  }
  std::string mode() const override { return "single_process_p2p"; }
  int size() const override { return topo_.count(); }
  bool drives(int) const override { return true; }
  int device_ordinal(int gpu) const override { return gpu; }
  void* alloc(int gpu, size_t bytes) override {
    PK_CUDA_CHECK(cudaSetDevice(gpu));
    void* p = nullptr;
    PK_CUDA_CHECK(cudaMalloc(&p, bytes));
    allocs_.emplace_back(gpu, p);
    return p;
  }
  void* peer_ptr(int from, int owner, void* ptr) const override {
    if (!topo_.can_access(from, owner))
      throw SkipPoint("GPU" + std::to_string(from) + " has no peer access to GPU" + std::to_string(owner));
    return ptr;  // unified addressing: the owner's pointer is valid on every peer
  }
  void barrier() override {}
  double max_over_processes(double v) override { return v; }

 private:
  const Topology& topo_;
  std::vector<std::pair<int, void*>> allocs_;
};

}  // namespace

std::unique_ptr<PeerGroup> make_single_process_group(const Topology& topo) {
  return std::make_unique<SingleProcessGroup>(topo);
}

}  // namespace pk
