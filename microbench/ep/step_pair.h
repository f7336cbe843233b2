#pragma once
// The dispatch_combine implementations built of this suite's own steps (ep_steps.h): a dispatch
// step and a combine step on the same `sms` SMs, each one `run` a GPU. ll and ht differ only in
// their steps, their enqueues and the row's config column.
#include <functional>
#include <string>
#include <utility>

#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_steps.h"

namespace pk::ep {

template <class Dispatch, class Combine>
class StepPair final : public Impl {
 public:
  // `config`: the row's config column, given the dispatch step as built.
  StepPair(Context& c, int sms, int enqueues_per_op, std::function<std::string(const Dispatch&)> config)
      : Impl(c), d_(c, sms), c_(c, sms), enqueues_per_op_(enqueues_per_op), config_(std::move(config)) {}
  void enqueue() override { for_each_gpu(ctx, [&](int g, cudaStream_t s) { d_.run(g, s); }); }
  void combine() override { for_each_gpu(ctx, [&](int g, cudaStream_t s) { c_.run(g, s); }); }
  bool has_combine() const override { return true; }
  int enqueues_per_op() const override { return enqueues_per_op_; }
  void describe(Row& row) const override {
    d_.describe(row);
    row["config"] = config_(d_);
  }

 private:
  Dispatch d_;
  Combine c_;
  int enqueues_per_op_;
  std::function<std::string(const Dispatch&)> config_;
};

}  // namespace pk::ep
