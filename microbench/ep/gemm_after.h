#pragma once
// What the dispatch_gemm implementations share (impl_gemm.cu, impl_overlap.cu): a dispatch
// (`Dispatch`: ht's steps or the NCCL baseline), then the grouped GEMM, per GPU in stream
// order. The GEMM runs on every SM of the rank, or on all but `comm` communicator blocks that
// run ht's data step themselves (overlap).
#include <string>
#include <type_traits>

#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_steps.h"

namespace pk::ep {

template <class Dispatch>
class GemmAfter : public Impl {
 public:
  // Per GPU: what the dispatch enqueues there, then the GEMM.
  void enqueue() override {
    for_each_gpu(ctx, [&](int g, cudaStream_t s) {
      before_gemm(g, s);
      g_.run(g, s);
    });
  }

 protected:
  template <class... DispatchArgs>
  explicit GemmAfter(Context& c, int comm, DispatchArgs... dispatch_args)
      : Impl(c), d_(c, dispatch_args...), g_(c, c.sm_budget() - comm, comm, comm ? run_by_gemm() : nullptr) {}
  // What the dispatch enqueues on `gpu` ahead of the GEMM (nothing: the GEMM alone).
  virtual void before_gemm(int, cudaStream_t) {}
  void describe_gemm(Row& row, const std::string& config) const {
    g_.describe(row);
    row["config"] = config;
  }

  Dispatch d_;
  ExpertGemm g_;

 private:
  // The dispatch whose data step the communicator blocks run: only ht's has one to hand over.
  HtDispatch* run_by_gemm() {
    if constexpr (std::is_same_v<Dispatch, HtDispatch>) return &d_;
    else return nullptr;
  }
};

}  // namespace pk::ep
