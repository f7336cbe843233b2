// The `tuned` implementation: at each point, the configuration a tuning table answers,
// obtained the way a user's program obtains it (pkbench/tuning.h, Tuner::choose_collective),
// launched through the implementation it names with the knobs it names. The study measures it
// beside every other row of the same run: the sweeps set it against the best measured row at
// the point and against the answered implementation's own default (auto) grid.
#include <pkbench/tuning.h>

#include "microbench/collectives/coll_harness.h"

namespace pk::coll {
namespace {

class TunedImpl final : public Impl {
 public:
  TunedImpl(std::shared_ptr<Impl> inner, std::string answer, std::string refused)
      : inner_(std::move(inner)), answer_(std::move(answer)), refused_(std::move(refused)) {}
  std::string name() const override { return "tuned"; }
  // Neither ours nor a baseline in the sweeps' comparisons: a row answered from a table.
  std::string family() const override { return "tuned"; }
  bool baseline() const override { return inner_ && inner_->baseline(); }
  bool supports(int) const override { return true; }  // made for one point
  uint64_t scratch_bytes(const Problem& p) const override { return inner_ ? inner_->scratch_bytes(p) : 0; }
  std::string unavailable(const Problem& p, Context& ctx) const override {
    if (!refused_.empty()) return refused_;
    return inner_->unavailable(p, ctx);
  }
  void prepare(const Problem& p, Context& ctx) override { inner_->prepare(p, ctx); }
  void* input(int gpu) override { return inner_->input(gpu); }
  void* output(int gpu) override { return inner_->output(gpu); }
  void enqueue(int gpu, cudaStream_t s) override { inner_->enqueue(gpu, s); }
  void group_begin() override { inner_->group_begin(); }
  void group_end() override { inner_->group_end(); }
  int enqueues_per_op() const override { return inner_->enqueues_per_op(); }
  std::string config() const override { return inner_->config(); }
  const Impl& underlying() const override {
    if (inner_) return *inner_;
    return *this;
  }
  void describe(Row& row) const override {
    if (inner_) inner_->describe(row);
    row["tuning"] = answer_;
  }

 private:
  std::shared_ptr<Impl> inner_;
  std::string answer_, refused_;
};

}  // namespace

std::shared_ptr<Impl> tuned_impl(const pkbench::tuning::Tuner& tuner, const std::string& table, const Problem& p,
                                 LaunchMode mode, const ImplList& registry) {
  const auto c = tuner.choose_collective(p.coll, p.bytes, dtype_name(p.dtype), p.n, launch_mode_name(mode));
  const std::string where = "table " + table + " (" + tuner.rows_machine() + ")";
  if (!c.ok()) return std::make_shared<TunedImpl>(nullptr, "", "tuning " + where + ": " + c.why);
  std::string from;
  for (const auto& f : c.from) from += (from.empty() ? "" : ";") + f;
  const LaunchKnobs k{c.sms, c.threads};
  const std::string answer = "impl=" + c.impl + " sms=" + (c.sms ? std::to_string(c.sms) : "-") +
                             " threads=" + (c.threads ? std::to_string(c.threads) : "-") + " launch_mode=" +
                             c.launch_mode + " basis=" + to_string(c.basis) + " from=" + from + " " + where;
  std::shared_ptr<Impl> base;
  for (const auto& i : registry)
    if (i->name() == c.impl && i->supports(p.layout)) base = i;
  if (!base) return std::make_shared<TunedImpl>(nullptr, answer, "tuning " + where + " answers " + c.impl + ", which this build has not registered for " + p.coll);
  if (base->family() == "pk") {
    const std::string why = base->knob_refusal(k);
    if (!why.empty()) return std::make_shared<TunedImpl>(nullptr, answer, "tuning " + where + " answers " + c.impl + " with " + k.text() + ": " + why);
    base = base->with_knobs(k);
  }
  return std::make_shared<TunedImpl>(base, answer, "");
}

}  // namespace pk::coll
