#include "microbench/harness/verdict.h"

#include <algorithm>
#include <cmath>

#include "microbench/harness/format.h"

namespace pk {

bool bands_overlap(double a_lo, double a_hi, double b_lo, double b_hi) { return a_lo <= b_hi && b_lo <= a_hi; }

bool within_noise(const Timing& a, const Timing& b) {
  if (!a.measured() || !b.measured()) return false;
  if (a.has_band() && b.has_band()) return bands_overlap(a.low(), a.high(), b.low(), b.high());
  return std::fabs(a.median / b.median - 1) <= kTieFraction;
}

double speedup(double baseline_time, double our_time) {
  return baseline_time > 0 && our_time > 0 ? baseline_time / our_time : 0;
}

CheckStatus CrossCheck::status() const {
  if (!(ratio > 0)) return CheckStatus::not_checked;
  // The edge (exactly 5 % off) is within: a ratio printed as 1.05 must not flip on rounding.
  return std::fabs(ratio - 1) <= kCrossCheckTolerance + 1e-9 ? CheckStatus::checked : CheckStatus::off;
}

std::string CrossCheck::text() const {
  switch (status()) {
    case CheckStatus::not_checked: return "not checked";
    case CheckStatus::checked: return "checked (" + tool + ", ratio " + num(ratio, 3) + ")";
    case CheckStatus::off: return "off by " + num(100 * std::fabs(ratio - 1), 1) + " % (" + tool + ")";
  }
  return "";
}

CrossCheck cross_check(const std::string& tool, double ref_value, double ratio) {
  CrossCheck c;
  c.tool = tool.empty() ? "its tool" : tool;
  c.ref_value = ref_value;
  c.ratio = std::isfinite(ratio) && ratio > 0 ? ratio : 0;
  return c;
}

CrossCheck weakest(const std::vector<CrossCheck>& checks) {
  CrossCheck out;
  bool any = false;
  for (const auto& c : checks) {
    const auto rank = [](CheckStatus s) { return s == CheckStatus::off ? 2 : s == CheckStatus::not_checked ? 1 : 0; };
    if (!any || rank(c.status()) > rank(out.status()) ||
        (c.defective() && out.defective() && std::fabs(c.ratio - 1) > std::fabs(out.ratio - 1)))
      out = c;
    any = true;
  }
  return out;
}

Best best_of(const std::vector<Candidate>& family) {
  Best b;
  for (const auto& c : family)
    if (c.t.measured() && (!b.fastest || c.t.median < b.fastest->t.median)) b.fastest = &c;
  if (!b.fastest) return b;
  for (const auto& c : family)
    if (c.t.measured() && (&c == b.fastest || within_noise(c.t, b.fastest->t))) b.tied.push_back(&c);
  return b;
}

PointVerdict compare_best(const std::vector<Candidate>& ours, const std::vector<Candidate>& baselines) {
  PointVerdict v;
  v.ours = best_of(ours);
  v.base = best_of(baselines);
  // The baseline's cross-check stands on its own: a run of the baseline alone (its tool's
  // cross-check) still reports it.
  if (v.base) v.check = v.base.fastest->check;
  if (!v.ours) {
    v.outcome = Outcome::no_ours;
    return v;
  }
  if (!v.base) {
    v.outcome = Outcome::no_baseline;
    return v;
  }
  v.speedup = speedup(v.base.fastest->t.median, v.ours.fastest->t.median);
  v.outcome = within_noise(v.ours.fastest->t, v.base.fastest->t) ? Outcome::tie
              : v.speedup > 1                                     ? Outcome::faster
                                                                  : Outcome::slower;
  return v;
}

const char* outcome_text(Outcome o) {
  switch (o) {
    case Outcome::faster: return "faster";
    case Outcome::tie: return "within noise";
    case Outcome::slower: return "slower";
    case Outcome::no_baseline: return "no baseline";
    case Outcome::no_ours: return "not measured";
  }
  return "";
}

double judged_speedup(Outcome o, double speedup) { return o == Outcome::tie ? 1.0 : speedup; }
double judged_speedup(const PointVerdict& v) { return judged_speedup(v.outcome, v.speedup); }

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::met: return "met";
    case Verdict::missed: return "missed";
    case Verdict::tie: return "tie (within noise)";
    case Verdict::baseline_defective: return "baseline off its tool";
    case Verdict::info: return "info";
    case Verdict::not_measured: return "not measured";
  }
  return "";
}

Verdict judge(bool holds, const CrossCheck& check, bool by_tie) {
  if (!holds) return Verdict::missed;
  if (check.defective()) return Verdict::baseline_defective;
  return by_tie ? Verdict::tie : Verdict::met;
}

}  // namespace pk
