#include "microbench/harness/device_runtime.h"

#include <atomic>
#include <cstdlib>
#include <sstream>

#include "kernels/gate.cuh"
#include "kernels/pattern.cuh"
#include "microbench/harness/cuda_check.h"

namespace pk {

double deadline_scale() {
  static const double scale = [] {
    const char* v = std::getenv("PKBENCH_DEADLINE_SCALE");
    if (!v || !*v) return 1.0;
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (*end != '\0' || !(x >= 1) || x > 1e6)
      throw ArgError(std::string("PKBENCH_DEADLINE_SCALE=") + v + ": not a number from 1 to 1e6");
    return x;
  }();
  return scale;
}

StatusBoard::StatusBoard(const PeerGroup& g) : g_(g) {
  deadline_scale();  // a bad $PKBENCH_DEADLINE_SCALE throws here too, for code that bypasses StudyMain
  for (int gpu : g_.local_gpus()) on(gpu);
}

StatusBoard::~StatusBoard() {
  for (auto& [gpu, p] : words_) {
    g_.set_device(gpu);
    cudaFree(p);
  }
}

DeviceStatus* StatusBoard::on(int gpu) {
  auto it = words_.find(gpu);
  if (it != words_.end()) return it->second;
  g_.set_device(gpu);
  DeviceStatus* p = nullptr;
  PK_CUDA_CHECK(cudaMalloc(&p, sizeof(DeviceStatus)));
  PK_CUDA_CHECK(cudaMemset(p, 0, sizeof(DeviceStatus)));
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  words_[gpu] = p;
  return p;
}

std::string describe_status(const DeviceStatus& s) {
  std::ostringstream os;
  switch (s.code) {
    case kStatusTimeout: {
      // The low byte names the wait (kWait*); studies may pack where it was above it.
      static const char* what[] = {"?", "start gate", "mbarrier", "flag", "barrier"};
      const unsigned long long kind = s.detail & 0xff, where = s.detail >> 8;
      os << "timeout waiting for " << (kind < 5 ? what[kind] : "a partner");
      // Collectives pack the phase (bits 8-15) and the awaited GPU (bits 16+).
      if (where) os << " (phase " << (where & 0xff) << ", from GPU" << (where >> 8) << ")";
      break;
    }
    case kStatusBadConfig: os << "kernel rejected its configuration"; break;
    default: os << "device status code " << s.code;
  }
  os << " (block " << s.block << ", thread " << s.thread << ")";
  return os.str();
}

void StatusBoard::check(const std::vector<int>& gpus) {
  std::string err;
  for (int d : gpus) {
    DeviceStatus* p = on(d);
    g_.set_device(d);
    DeviceStatus h{};
    PK_CUDA_CHECK(cudaMemcpy(&h, p, sizeof h, cudaMemcpyDeviceToHost));
    if (h.code != kStatusOk) {
      if (err.empty()) err = "GPU" + std::to_string(d) + ": " + describe_status(h);
      PK_CUDA_CHECK(cudaMemset(p, 0, sizeof h));
    }
  }
  if (!err.empty()) throw DeviceFailure(err);
}

namespace {
constexpr uint64_t kGateWordBytes = 128;  // one line per GPU's word
}

Gate::Gate(PeerGroup& g) : g_(g) {
  words_ = g_.alloc(kGateWordBytes, "start gate");
  collectively(g_.comm(), [&] {
    for (int gpu : g_.local_gpus()) {
      g_.set_device(gpu);
      PK_CUDA_CHECK(cudaMemset(words_.local(gpu), 0, kGateWordBytes));
      PK_CUDA_CHECK(cudaDeviceSynchronize());
      // Highest priority, its own stream: the opener must not queue behind gated work.
      int lo = 0, hi = 0;
      PK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
      opener_streams_[gpu] = g_.create_stream(gpu, hi);
    }
  });
  if (g_.drives(0)) opener_ = 0;
  g_.barrier();
}

Gate::~Gate() {
  for (auto& [gpu, s] : opener_streams_) {
    g_.set_device(gpu);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
}

void Gate::arm(int gpu, cudaStream_t stream, const Deadline& d) {
  g_.set_device(gpu);
  gate_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<const int*>(words_.local(gpu)), generation_ + 1, d);
  PK_CUDA_CHECK_LAUNCH();
}

void Gate::launch_opener(int gpu, unsigned mask, int value) {
  g_.set_device(gpu);
  gate_open_kernel<<<1, kMaxGpus, 0, opener_streams_.at(gpu)>>>(words_.table<int>(gpu), mask, value);
  PK_CUDA_CHECK_LAUNCH();
}

void Gate::open() {
  g_.barrier();  // every process has enqueued its batch
  ++generation_;
  // Group GPU 0 belongs to rank 0 in every mode: it opens every GPU it reaches.
  if (opener_ >= 0) {
    unsigned mask = 0;
    for (int r = 0; r < g_.size(); ++r)
      if (g_.can_access(opener_, r)) mask |= 1u << r;
    launch_opener(opener_, mask, generation_);
  }
  // GPUs it cannot reach open themselves.
  for (int gpu : g_.local_gpus())
    if (gpu != opener_ && !g_.can_access(0, gpu)) launch_opener(gpu, 1u << gpu, generation_);
}

StreamPool::~StreamPool() {
  for (auto& [key, s] : streams_) {
    g_.set_device(key.first);
    cudaStreamDestroy(s);
  }
}

cudaStream_t StreamPool::get(int gpu, int index) {
  auto key = std::make_pair(gpu, index);
  auto it = streams_.find(key);
  if (it != streams_.end()) return it->second;
  int prev = 0;
  PK_CUDA_CHECK(cudaGetDevice(&prev));
  cudaStream_t s = g_.create_stream(gpu);
  // A virtual rank's stream leaves the current context alone; a real GPU's switched device.
  if (!g_.is_virtual()) PK_CUDA_CHECK(cudaSetDevice(prev));
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

void fill_pattern(void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte, cudaStream_t s) {
  if (bytes % 8 || first_byte % 8) throw std::invalid_argument("fill_pattern: bytes and offset must be multiples of 8");
  fill_pattern_kernel<<<1024, 256, 0, s>>>(static_cast<uint64_t*>(dst), bytes / 8, seed, first_byte / 8);
  PK_CUDA_CHECK_LAUNCH();
}

PatternCheck check_pattern(const void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte) {
  if (bytes % 8 || first_byte % 8) throw std::invalid_argument("check_pattern: bytes and offset must be multiples of 8");
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
