// The NVSwitch multicast (multimem) all-reduce, behind the refusal rules of docs/architecture.md
// (coll_problem.cpp: multicast_refusal). This build has no multicast setup at all (no
// cuMulticastCreate): with every rule passed the rows still say so, and nothing runs.
#include <cstdlib>

#include "kernels/collectives/multimem_allreduce.cuh"
#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

class MulticastImpl final : public PkImpl {
 public:
  std::string name() const override { return "multimem"; }
  std::string family() const override { return "multicast"; }
  bool supports(int layout) const override { return layout == kAllReduce; }
  std::string unavailable(const Problem&, Context& ctx) const override {
    const std::string why = multicast_refusal(ctx.cfg.allow_multicast, /*device_supports=*/-1,
                                              [](const char* v) { return std::getenv(v); });
    if (!why.empty()) return why;
    return "multimem variants: the multicast object setup is not built (never run on shared machines)";
  }
  void prepare(const Problem&, Context&) override { throw std::runtime_error("multicast is refused"); }
  void enqueue(int, cudaStream_t) override {
    // Unreachable: unavailable() always refuses. The kernel is referenced so that it compiles.
    (void)&multimem_all_reduce_kernel;
    throw std::runtime_error("multicast is refused");
  }

 private:
  std::pair<int, int> thread_range() const override { return {512, 512}; }  // its launch bound; never launched
};

}  // namespace

ImplList multicast_impls() { return {std::make_shared<MulticastImpl>()}; }

}  // namespace pk::coll
