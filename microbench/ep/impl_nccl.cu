// nccl: the baseline a framework without DeepEP would run (ep_nccl.h): counts by
// ncclAlltoAll, tokens by ncclSend/ncclRecv per peer, the permutes around them.
#include "microbench/ep/ep_impl.h"
#include "microbench/ep/ep_nccl.h"

namespace pk::ep {

namespace {
class Nccl final : public Impl {
 public:
  Nccl(Context& c) : Impl(c), n_(c, c.sm_budget()) {}
  void enqueue() override { n_.dispatch(); }
  void combine() override { n_.combine(); }
  bool has_combine() const override { return true; }
  int enqueues_per_op() const override { return n_.enqueues_per_op(); }
  void describe(Row& row) const override {
    row["threads"] = "512";
    row["config"] = "NCCL " + NcclBaseline::version() + " (its own grid); permutes on " + std::to_string(n_.blocks()) + " blocks";
  }

 private:
  NcclBaseline n_;
};
}  // namespace

std::unique_ptr<Impl> make_nccl(Context& c, const Point&) { return std::make_unique<Nccl>(c); }

}  // namespace pk::ep
