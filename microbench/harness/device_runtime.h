#pragma once
// Per-GPU runtime pieces every study needs: the start gate, the status words that kernels
// report timeouts through, streams, and the random-pattern fill/check launchers. Every GPU
// number is a group GPU (PeerGroup); the pieces switch devices through the group.
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/status.cuh"
#include "microbench/harness/peer_group.h"

namespace pk {

// A kernel reported a failure (timeout, bad configuration): the point is an error.
struct DeviceFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// $PKBENCH_DEADLINE_SCALE (a number >= 1; default 1): multiplies every kernel spin-wait deadline,
// for tools that slow kernels many times over (compute-sanitizer, a debugger). Read once; a value
// that is not a number from 1 to 1e6 is refused (ArgError naming the variable; a study's main
// exits 2 with it before anything runs).
double deadline_scale();

class StatusBoard {
 public:
  // Allocates every local GPU's word now: a first use during a measurement would synchronise
  // the device while other ranks' gated kernels spin (one GPU under virtual ranks).
  explicit StatusBoard(const PeerGroup& g);
  ~StatusBoard();
  StatusBoard(const StatusBoard&) = delete;
  StatusBoard& operator=(const StatusBoard&) = delete;
  DeviceStatus* on(int gpu);  // zeroed device-side status word of `gpu` (driven here)
  // Every kernel's spin-wait limit: timeout_ms times deadline_scale().
  Deadline deadline(int gpu, double timeout_ms) {
    return Deadline{uint64_t(timeout_ms * deadline_scale() * 1e6), on(gpu)};
  }
  // Reads the words of `gpus` (after their work is synchronised); throws DeviceFailure
  // describing the first failure and clears them.
  void check(const std::vector<int>& gpus);

 private:
  const PeerGroup& g_;
  std::map<int, DeviceStatus*> words_;
};

std::string describe_status(const DeviceStatus& s);


// Holds queued work until open(): every process enqueues its whole batch, then every armed
// stream on every GPU starts at once. The gate words live in symmetric memory; after a
// barrier, rank 0 opens every GPU its first GPU can reach with one kernel, and each process
// opens its own GPUs that rank 0 cannot reach.
class Gate {
 public:
  explicit Gate(PeerGroup& g);  // collective
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  // Queues a one-thread kernel on `stream` (of `gpu`, driven here) that waits for open().
  void arm(int gpu, cudaStream_t stream, const Deadline& d);
  // Collective: every process calls it once per round, armed or not.
  void open();

 private:
  void launch_opener(int gpu, unsigned mask, int value);
  PeerGroup& g_;
  SymBuf words_;
  int generation_ = 0;
  int opener_ = -1;  // rank 0's first GPU; -1 on other ranks
  std::map<int, cudaStream_t> opener_streams_;
};

class StreamPool {
 public:
  explicit StreamPool(const PeerGroup& g) : g_(g) {}
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;
  cudaStream_t get(int gpu, int index);  // created on first use, non-blocking

 private:
  const PeerGroup& g_;
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

// Random pattern helpers (kernels/pattern.cuh), on the current device. Byte counts and
// offsets are multiples of 8.
void fill_pattern(void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte, cudaStream_t s = nullptr);
struct PatternCheck {
  uint64_t mismatched_words = 0;
  uint64_t first_bad_byte = 0;  // relative to the checked region
};
// Synchronous: checks that dst[0, bytes) equals the pattern of (seed) starting at first_byte.
PatternCheck check_pattern(const void* dst, uint64_t bytes, uint64_t seed, uint64_t first_byte);

}  // namespace pk
