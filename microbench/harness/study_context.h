#pragma once
// What every gated study's Context starts with, written once: the group, its start gate,
// status words and streams; and the two ways its runner drives an operation over the local
// GPUs (timed through a FlowTimer, or once untimed on every rank).
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"

namespace pk {

class StudyContext {
 public:
  explicit StudyContext(PeerGroup& g) : group(g), gate(g), status(g), streams(g) {}
  StudyContext(const StudyContext&) = delete;
  StudyContext& operator=(const StudyContext&) = delete;

  PeerGroup& group;
  Gate gate;
  StatusBoard status;
  StreamPool streams;

  const std::vector<int>& local_gpus() const { return group.local_gpus(); }
  cudaStream_t stream(int gpu, int index = 0) { return streams.get(gpu, index); }
  // Waits for every local GPU, then reads their status words (DeviceFailure).
  void sync_local();
  // Collective: fn(gpu) on every local GPU (its device current), then sync_local(), then a
  // barrier unless `barrier` is false.
  void on_local_gpus(const std::function<void(int gpu)>& fn, bool barrier = true);
  // Collective: the fewest SMs a rank of the group has (a virtual rank's share).
  int min_sm_budget();
};

// `timing.samples` timed samples of back-to-back operations (FlowTimer): one flow per local
// GPU, the first flow's callback queueing the operation on every local GPU (an NCCL group must
// span them), each flow's events timing its own GPU; `total_flows`: the ranks. Milliseconds
// per operation, and the calibrated iterations of a sample.
struct TimedOp {
  std::vector<double> ms;
  int iters = 0;
};
TimedOp time_op(StudyContext& c, int total_flows, const TimingOptions& timing, const std::function<void()>& op,
                int enqueues_per_gpu);

// Runs `fn` on every rank (collectively: an error on any rank throws on all) and waits for
// every local GPU (status words checked), then a barrier.
void untimed(StudyContext& c, const std::function<void()>& fn);

}  // namespace pk
