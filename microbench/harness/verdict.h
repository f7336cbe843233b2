#pragma once
// One rule from rows to verdicts, used by every summary, tuning table, the report and
// pkbench_compare: what a speedup is, when two measurements are within the noise, which row
// of a family is "best" (with ties), how a baseline's cross-check against its own tool reads,
// and how a target's verdict follows from a value and the baseline it was measured against.
// Nothing outside this file decides any of these.
#include <string>
#include <vector>

namespace pk {

// ---- noise -------------------------------------------------------------------------------
// A measurement: its median and the band its samples spread over (p10..p90 or min..max).
// lo/hi <= 0: no band recorded.
struct Timing {
  double median = 0, lo = 0, hi = 0;
  bool measured() const { return median > 0; }
  bool has_band() const { return lo > 0 && hi > 0; }
  double low() const { return lo > 0 ? lo : median; }
  double high() const { return hi > 0 ? hi : median; }
};
// Where neither side recorded a band (one host-timer figure, a summary value), two medians
// closer than this fraction are a tie: medians of one run move by about that much between runs.
constexpr double kTieFraction = 0.01;
// Two measurements are within the noise when their bands overlap; without bands, when their
// medians differ by at most kTieFraction.
bool within_noise(const Timing& a, const Timing& b);
// The same test on bare bands (lo..hi), as the tuning tables and pkbench_compare hold them.
bool bands_overlap(double a_lo, double a_hi, double b_lo, double b_hi);

// ---- speedup -----------------------------------------------------------------------------
// Baseline time / our time (> 1: ours is faster); 0 when either is missing.
double speedup(double baseline_time, double our_time);

// ---- cross-check of a baseline against its own tool ----------------------------------------
// ratio = our measurement of the baseline / the tool's figure for it, in the same call.
constexpr double kCrossCheckTolerance = 0.05;
enum class CheckStatus { not_checked, checked, off };
struct CrossCheck {
  std::string tool;      // "nccl-tests 2.19.6 all_reduce_perf" ("" = not run)
  double ref_value = 0;  // the tool's figure (time or GB/s)
  double ratio = 0;      // 0: not checked
  CheckStatus status() const;
  bool defective() const { return status() == CheckStatus::off; }
  // "checked (tool, ratio 1.012)", "off by 12.3 % (tool)", "not checked".
  std::string text() const;
};
// Parses the CSV cells (empty = not checked).
CrossCheck cross_check(const std::string& tool, double ref_value, double ratio);
// Of several baselines a verdict rests on, the one that decides its status: any defective one,
// else any unchecked one, else a checked one (nullptr-safe: an empty list reads not checked).
CrossCheck weakest(const std::vector<CrossCheck>& checks);

// ---- best of a family ----------------------------------------------------------------------
// One row competing in a family (ours, or a baseline), time-like (lower is better).
struct Candidate {
  std::string name;  // implementation (and configuration)
  Timing t;
  CrossCheck check;  // baselines only
  int index = -1;    // caller's row index
};
struct Best {
  const Candidate* fastest = nullptr;
  std::vector<const Candidate*> tied;  // within the noise of the fastest (the fastest included)
  explicit operator bool() const { return fastest != nullptr; }
};
Best best_of(const std::vector<Candidate>& family);

// Best ours against best baseline at one point.
enum class Outcome { faster, tie, slower, no_baseline, no_ours };
struct PointVerdict {
  Best ours, base;
  double speedup = 0;  // best baseline / best ours (medians)
  Outcome outcome = Outcome::no_baseline;
  CrossCheck check;  // the best baseline's
  bool claimable() const { return outcome == Outcome::faster && !check.defective(); }
};
PointVerdict compare_best(const std::vector<Candidate>& ours, const std::vector<Candidate>& baselines);
const char* outcome_text(Outcome o);
// The speedup a target judges: a point within the noise counts as 1.0 (neither side faster).
double judged_speedup(const PointVerdict& v);
double judged_speedup(Outcome o, double speedup);  // "faster", "within noise", "slower", "no baseline", "not measured"

// ---- target verdicts -----------------------------------------------------------------------
enum class Verdict { met, missed, tie, baseline_defective, info, not_measured };
// "met", "missed", "tie (within noise)", "baseline off its tool", "info", "not measured"
const char* verdict_text(Verdict v);
// A value against a threshold ("<op> <limit>"), measured against a baseline whose cross-check
// is `check`: a baseline off its tool by more than the tolerance turns "met" into
// baseline_defective (no speedup is claimed over it); a miss stays a miss. by_tie: the value
// holds only because a point within the noise was judged as 1.0 (its median was on the wrong
// side): that is a tie, not met.
Verdict judge(bool holds, const CrossCheck& check, bool by_tie = false);

}  // namespace pk
