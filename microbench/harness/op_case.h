#pragma once
// One implementation at one point, as the fused and the sequence-parallel studies declare theirs.
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

}  // namespace pk
