#pragma once
// Per-GPU runtime pieces every study needs: the start gate, the status words that kernels
// report timeouts through, streams, and the random-pattern fill/check launchers.
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../kernels/status.cuh"

namespace pk {

// A kernel reported a failure (timeout, bad configuration): the point is an error.
struct DeviceFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class StatusBoard {
 public:
  ~StatusBoard();
  DeviceStatus* on(int device);  // zeroed device-side status word for `device`
  Deadline deadline(int device, double timeout_ms) { return Deadline{uint64_t(timeout_ms * 1e6), on(device)}; }
  // Reads the words of `devices` (after their work is synchronised); throws DeviceFailure
  // describing the first failure and clears them.
  void check(const std::vector<int>& devices);

 private:
  std::map<int, DeviceStatus*> words_;
};

std::string describe_status(const DeviceStatus& s);

// Holds queued work until open(): the host enqueues a whole batch, then every armed stream
// on every GPU starts at once.
class Gate {
 public:
  Gate();
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  // Queues a one-thread kernel on `stream` (of the current device) that waits for open().
  void arm(cudaStream_t stream, const Deadline& d);
  void open();

 private:
  int* flag_ = nullptr;  // host-mapped, read by every GPU
  int generation_ = 0;
};

class StreamPool {
 public:
  ~StreamPool();
  cudaStream_t get(int device, int index);  // created on first use, non-blocking

 private:
  std::map<std::pair<int, int>, cudaStream_t> streams_;
};

// Two CUDA events on the current device, destroyed with the object.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  // Waits for `stop` and returns the time between the two records.
  float elapsed_ms() const;
};

// Random pattern helpers (kernels/pattern.cuh). Byte counts and offsets are multiples of 8.
void fill_pattern(int device, void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte, cudaStream_t s = nullptr);
struct PatternCheck {
  uint64_t mismatched_words = 0;
  uint64_t first_bad_byte = 0;  // relative to the checked region
};
// Synchronous: checks that dst[0, bytes) equals the pattern of (seed) starting at first_byte.
PatternCheck check_pattern(int device, const void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte);

}  // namespace pk
