#include "microbench/ep/ep_runner.h"

#include <algorithm>
#include <functional>

#include "microbench/ep/ep_impl.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/study_context.h"

namespace pk::ep {

std::unique_ptr<Impl> make_impl(Context& c, const Point& p) {
#define PK_EP_IMPL(name, op, family, baseline, takes_sms, make, summary) \
  if (p.impl == #name) return make(c, p);
#include "microbench/ep/ep_list.h"
#undef PK_EP_IMPL
  throw ArgError("--impls: unknown implementation '" + p.impl + "'");
}

namespace {

void put_stats(Row& row, const std::string& what, const std::vector<double>& ms) {
  put_us_quantiles(row, what + "_us", summarize(ms));
}

void put_check(Row& row, const Checked& c) {
  row["wrong_rows"] = fmt_num(c.wrong_rows);
  row["wrong_counts"] = fmt_num(c.wrong_counts);
  row["wrong_values"] = fmt_num(c.wrong_values);
  row["max_rel_err"] = fmt_num(c.max_rel, 4);
}

}  // namespace

Row Runner::describe(const Point& p, const EpShape& shape, int processes) {
  const ImplInfo& info = impl_info(p.impl);
  Row r{{"study", "ep"},
        {"op", op_name(p.op)},
        {"impl", p.impl},
        {"family", info.family},
        {"routing", routing_name(p.routing)},
        {"tokens", std::to_string(p.tokens)},
        {"hidden", std::to_string(shape.hidden)},
        {"experts", std::to_string(shape.experts)},
        {"topk", std::to_string(shape.topk)},
        {"ranks", std::to_string(shape.ranks)},
        {"processes", std::to_string(processes)},
        {"verified", "no"}};
  if (p.op == Op::dispatch_gemm) r["h_expert"] = std::to_string(shape.h_expert);
  return r;
}

void Runner::measure(const Point& p, Row& row) {
  Context& c = ctx_;
  const bool gemm = p.op == Op::dispatch_gemm;
  std::unique_ptr<Impl> impl;
  point_cost::within("setup", [&] {
    c.use_point(p.routing, p.tokens);
    if (gemm) c.ensure_weights();
    collectively(c.group.comm(), [&] { impl = make_impl(c, p); });
  });
  impl->describe(row);
  const Traffic& tr = c.traffic();
  row["link_bytes"] = std::to_string(tr.link_bytes());
  row["recv_rows_max"] = std::to_string(p.impl == "ll" ? int64_t(c.local_experts()) * c.ll_cap() : tr.max_rows_packed());

  // One untimed operation of each kind: a broken implementation fails before any timing.
  point_cost::within("first-run", [&] {
    c.poison_outputs();
    untimed(c, [&] {
      impl->prepare_inputs();
      impl->enqueue();
    });
    if (impl->has_combine()) {
      c.fill_expert_outputs(0);
      untimed(c, [&] { impl->combine(); });
    }
  });

  const TimedOp d = time_case(*impl);
  TimedOp cb;
  if (impl->has_combine()) cb = time_case(*impl, [&] { impl->combine(); });

  // The final run: fresh tokens and expert outputs into re-poisoned outputs, then the checks.
  const Checked chk = point_cost::within("verify", [&] {
    c.fill_tokens(1);
    c.poison_outputs();
    untimed(c, [&] {
      impl->prepare_inputs();
      impl->enqueue();
    });
    Checked k = check_dispatch(c, p.impl == "ll");
    if (k.ok() && gemm) k = check_gemm(c);
    if (k.ok() && impl->has_combine()) {
      c.fill_expert_outputs(1);
      untimed(c, [&] { impl->combine(); });
      k = check_combine(c, 1);
    }
    c.fill_tokens(0);  // the timed inputs again, bitwise the same for every implementation compared
    return k;
  });
  put_check(row, chk);
  if (!chk.ok()) throw std::runtime_error("wrong result: " + chk.first);
  row["verified"] = "yes";

  put_sample_counts(row, d.iters, d.ms.size());
  put_stats(row, "dispatch", d.ms);
  const double d_us = summarize(d.ms).median * 1e3;
  const double per_rank = double(tr.link_bytes()) / c.ranks();
  if (!gemm) row["dispatch_gbps_per_rank"] = fmt_num(per_rank / (d_us * 1e3));
  double total = d_us;
  if (!cb.ms.empty()) {
    put_stats(row, "combine", cb.ms);
    const double c_us = summarize(cb.ms).median * 1e3;
    row["combine_gbps_per_rank"] = fmt_num(per_rank / (c_us * 1e3));
    total += c_us;
  }
  row["total_us_median"] = fmt_num(total);
  if (gemm) {
    int64_t rows = 0;
    for (int e = 0; e < c.shape.experts; ++e) rows += tr.expert_count[e];
    const double flops = 2.0 * double(rows) * c.shape.hidden * c.shape.h_expert / c.ranks();
    row["tflops"] = fmt_num(flops / (d_us * 1e6));
  }
}

}  // namespace pk::ep
