#include "microbench/harness/study_context.h"

#include <algorithm>
#include <climits>

#include "microbench/harness/comm.h"
#include "microbench/harness/cuda_check.h"

namespace pk {

void StudyContext::sync_local() {
  for (int gpu : local_gpus()) {
    group.set_device(gpu);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  status.check(local_gpus());
}

void StudyContext::on_local_gpus(const std::function<void(int gpu)>& fn, bool barrier) {
  collectively(group.comm(), [&] {
    for (int gpu : local_gpus()) {
      group.set_device(gpu);
      fn(gpu);
    }
    sync_local();
  });
  if (barrier) group.barrier();
}

int StudyContext::min_sm_budget() {
  int mine = INT_MAX;
  for (int gpu : group.local_gpus()) mine = std::min(mine, group.sm_budget(gpu));
  return static_cast<int>(group.comm().min(mine));
}

TimedOp time_op(StudyContext& c, int total_flows, const TimingOptions& timing, const std::function<void()>& op,
                int enqueues_per_gpu) {
  std::vector<Flow> flows;
  const auto& gpus = c.local_gpus();
  const int per_op = enqueues_per_gpu * static_cast<int>(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i)
    flows.push_back(Flow{gpus[i], gpus[i], c.stream(gpus[i]), i == 0 ? per_op : 1,
                         i == 0 ? std::function<void(int)>([&op](int) { op(); }) : std::function<void(int)>([](int) {})});
  FlowTimer timer(c.group, std::move(flows), total_flows, c.gate, c.status, timing);
  TimedOp t;
  t.iters = timer.calibrate();
  for (int i = 0; i < timing.samples; ++i) t.ms.push_back(timer.sample().step_ms_per_op);
  return t;
}

void untimed(StudyContext& c, const std::function<void()>& fn) {
  collectively(c.group.comm(), [&] {
    fn();
    c.sync_local();
  });
  c.group.barrier();
}

}  // namespace pk
