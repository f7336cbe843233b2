#pragma once
// One implementation at one point (a line of ep_list.h, made by its MAKE function in its own
// file impl_*.cu): the harness's OpCase (enqueue: one dispatch, or one dispatch and grouped
// GEMM, on every GPU this process drives, each on ctx.stream(gpu)) and what ep adds: the inputs
// an operation needs and does not make, and a second timed operation, the combine. The runner
// (ep_runner.cu) times, checks and reports it.
#include <memory>
#include <string>

#include "microbench/ep/ep_context.h"
#include "microbench/harness/op_case.h"

namespace pk::ep {

class Impl : public OpCase<Context> {
 public:
  using OpCase::OpCase;
  // Before an operation is timed or checked, on inputs just (re)filled: what the operation
  // needs and does not produce itself (gemm_only: the dispatched layout). Collective.
  virtual void prepare_inputs() {}
  // One combine of the last dispatch's tokens (dispatch_combine only), with enqueues_per_op()'s
  // CUDA calls.
  virtual void combine() {}
  virtual bool has_combine() const { return false; }
  // The row's launch columns: every implementation has its own.
  void describe(Row& row) const override = 0;
};

// Each line's factory, wherever its file defines it.
#define PK_EP_IMPL(name, op, family, baseline, takes_sms, make, summary) std::unique_ptr<Impl> make(Context&, const Point&);
#include "microbench/ep/ep_list.h"
#undef PK_EP_IMPL

// The factory of p's implementation (its line of ep_list.h).
std::unique_ptr<Impl> make_impl(Context& c, const Point& p);

// The SMs point p gives a data step: its own, else the automatic choice for `impl`'s at p's
// token count within the rank's SMs (auto_sms).
inline int step_sms(const Context& c, const Point& p, const std::string& impl) {
  return p.sms ? p.sms : auto_sms(impl, p.tokens, c.sm_budget());
}

// Enqueues fn(gpu, stream) for every local GPU.
template <class F>
void for_each_gpu(Context& c, F&& fn) {
  for (int gpu : c.local_gpus()) {
    c.group.set_device(gpu);
    fn(gpu, c.stream(gpu));
  }
}

}  // namespace pk::ep
