#pragma once
// One implementation at one point, as the fused, sequence-parallel, expert-parallel and launch studies declare theirs.
#include <functional>

#include "microbench/harness/study_context.h"
#include "microbench/harness/tidy_csv.h"

namespace pk {

// One implementation of a study's operation at one point (a line of the study's list, made by
// its factory): what one operation queues on every GPU this process drives. The study's
// runner times, checks and reports it; a study adds what its rows report.
template <class Context>
class OpCase {
 public:
  explicit OpCase(Context& c) : ctx(c) {}
  virtual ~OpCase() = default;
  // Queues one operation on every GPU this process drives, each on its own stream.
  virtual void enqueue() = 0;
  // CUDA calls one operation queues over the local GPUs (what waits behind the start gate).
  virtual int enqueues_per_op() const = 0;
  // The row's launch columns, where the case has its own.
  virtual void describe(Row&) const {}

  Context& ctx;
};

// Case k's operation timed on every rank of its study (time_op), or `op`, another operation of
// the case queueing as many CUDA calls per GPU (ep's combine). The study's context has ranks()
// and opt.timing.
template <class Context>
TimedOp time_case(OpCase<Context>& k, const std::function<void()>& op = {}) {
  const std::function<void()> run = op ? op : std::function<void()>([&k] { k.enqueue(); });
  return time_op(k.ctx, k.ctx.ranks(), k.ctx.opt.timing, run, k.enqueues_per_op());
}

}  // namespace pk
