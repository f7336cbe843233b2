#include "device_runtime.h"

#include <atomic>
#include <sstream>

#include "../../kernels/gate.cuh"
#include "../../kernels/pattern.cuh"
#include "cuda_check.h"

namespace pk {

StatusBoard::~StatusBoard() {
  for (auto& [dev, p] : words_) {
    cudaSetDevice(dev);
    cudaFree(p);
  }
}

DeviceStatus* StatusBoard::on(int device) {
  auto it = words_.find(device);
  if (it != words_.end()) return it->second;
  int prev = 0;
  PK_CUDA_CHECK(cudaGetDevice(&prev));
  PK_CUDA_CHECK(cudaSetDevice(device));
  DeviceStatus* p = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&p, sizeof(DeviceStatus)));
  PK_CUDA_CHECK(cudaMemset(p, 0, sizeof(DeviceStatus)));
  PK_CUDA_CHECK(cudaSetDevice(prev));
  words_[device] = p;
  return p;
}

std::string describe_status(const DeviceStatus& s) {
  std::ostringstream os;
  switch (s.code) {
    case kStatusTimeout: {
      static const char* what[] = {"?", "start gate", "mbarrier", "flag", "barrier"};
      os << "timeout waiting for " << (s.detail < 5 ? what[s.detail] : "a partner");
      break;
    }
    case kStatusBadConfig: os << "kernel rejected its configuration"; break;
    default: os << "device status code " << s.code;
  }
  os << " (block " << s.block << ", thread " << s.thread << ")";
  return os.str();
}

void StatusBoard::check(const std::vector<int>& devices) {
  std::string err;
  for (int d : devices) {
    DeviceStatus* p = on(d);
    DeviceStatus h{};
    PK_CUDA_CHECK(cudaMemcpy(&h, p, sizeof h, cudaMemcpyDeviceToHost));
    if (h.code != kStatusOk) {
      if (err.empty()) err = "GPU" + std::to_string(d) + ": " + describe_status(h);
      PK_CUDA_CHECK(cudaMemset(p, 0, sizeof h));
    }
  }
  if (!err.empty()) throw DeviceFailure(err);
}

Gate::Gate() {
  PK_CUDA_CHECK(cudaHostAlloc(&flag_, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  *flag_ = 0;
}

Gate::~Gate() { cudaFreeHost(flag_); }

void Gate::arm(cudaStream_t stream, const Deadline& d) {
  gate_kernel<<<1, 1, 0, stream>>>(flag_, generation_ + 1, d);
  PK_CUDA_CHECK_LAUNCH();
}

void Gate::open() {
  ++generation_;
  std::atomic_ref<int>(*flag_).store(generation_, std::memory_order_release);
}

StreamPool::~StreamPool() {
  for (auto& [key, s] : streams_) {
    cudaSetDevice(key.first);
    cudaStreamDestroy(s);
  }
}

cudaStream_t StreamPool::get(int device, int index) {
  auto key = std::make_pair(device, index);
  auto it = streams_.find(key);
  if (it != streams_.end()) return it->second;
  int prev = 0;
  PK_CUDA_CHECK(cudaGetDevice(&prev));
  PK_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s;
  PK_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  PK_CUDA_CHECK(cudaSetDevice(prev));
  streams_[key] = s;
  return s;
}

EventPair::EventPair() {
  PK_CUDA_CHECK(cudaEventCreate(&start));
  PK_CUDA_CHECK(cudaEventCreate(&stop));
}

EventPair::~EventPair() {
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

float EventPair::elapsed_ms() const {
  PK_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  PK_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms;
}

void fill_pattern(int device, void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte, cudaStream_t s) {
  if (bytes % 8 || first_byte % 8) throw std::invalid_argument("fill_pattern: bytes and offset must be multiples of 8");
  PK_CUDA_CHECK(cudaSetDevice(device));
  fill_pattern_kernel<<<1024, 256, 0, s>>>(static_cast<uint64_t*>(dst), bytes / 8, seed, first_byte / 8);
  PK_CUDA_CHECK_LAUNCH();
}

PatternCheck check_pattern(int device, const void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte) {
  if (bytes % 8 || first_byte % 8) throw std::invalid_argument("check_pattern: bytes and offset must be multiples of 8");
  PK_CUDA_CHECK(cudaSetDevice(device));
  unsigned long long* m = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&m, 2 * sizeof(unsigned long long)));
  unsigned long long init[2] = {0, ~0ull};
  PK_CUDA_CHECK(cudaMemcpy(m, init, sizeof init, cudaMemcpyHostToDevice));
  check_pattern_kernel<<<1024, 256>>>(static_cast<const uint64_t*>(dst), bytes / 8, seed, first_byte / 8, m);
  PK_CUDA_CHECK_LAUNCH();
  unsigned long long h[2];
  cudaError_t e = cudaMemcpy(h, m, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(m);
  PK_CUDA_CHECK(e);
  return PatternCheck{h[0], h[0] ? h[1] * 8 : 0};
}

}  // namespace pk
