#include "microbench/harness/targets.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "microbench/harness/format.h"

namespace pk {

const TargetSpec& TargetSpecs::operator()(const std::string& id) const {
  for (const auto& s : specs_)
    if (s.id == id) return s;
  throw std::logic_error("unknown target '" + id + "'");
}

std::string TargetSpec::text() const {
  std::string v = num(value, value == std::floor(value) ? 0 : 2);
  return op + " " + v + unit;
}

bool TargetSpec::holds(double measured) const { return op == ">=" ? measured >= value : measured <= value; }

std::string TargetResult::sentence() const {
  if (verdict == Verdict::info) return measured + note;
  std::string s = measured + " (target " + target + "): **" + verdict_text(verdict) + "**" + note;
  if (!baseline.empty()) s += "; baseline " + baseline + ", " + check.text();
  return s;
}

std::string TargetResult::check_text() const { return baseline.empty() ? "-" : check.text(); }

std::string targets_table_markdown(const std::vector<TargetResult>& targets) {
  std::ostringstream os;
  os << "| target | stated in | measured | baseline | baseline's cross-check | verdict |\n|---|---|---|---|---|---|\n";
  for (const auto& t : targets) {
    if (t.verdict == Verdict::info) continue;
    os << "| " << t.what << " " << t.target << " | " << t.origin << " | " << t.measured << t.note << " | "
       << (t.baseline.empty() ? "-" : t.baseline) << " | " << t.check_text() << " | **" << verdict_text(t.verdict)
       << "** |\n";
  }
  return os.str();
}

std::string targets_info_markdown(const std::vector<TargetResult>& targets) {
  std::string out;
  for (const auto& t : targets)
    if (t.verdict == Verdict::info) out += (out.empty() ? "\nAlso measured:\n\n" : "") + std::string("- ") + t.sentence() + "\n";
  return out;
}

std::string target_count_text(const std::vector<TargetResult>& targets) {
  int n = 0, met = 0, missed = 0, tied = 0, defective = 0, unmeasured = 0;
  for (const auto& t : targets) {
    if (t.verdict == Verdict::info) continue;
    ++n;
    met += t.verdict == Verdict::met;
    missed += t.verdict == Verdict::missed;
    tied += t.verdict == Verdict::tie;
    defective += t.verdict == Verdict::baseline_defective;
    unmeasured += t.verdict == Verdict::not_measured;
  }
  std::string s = std::to_string(n) + (n == 1 ? " target: " : " targets: ") + std::to_string(met) + " met, " + std::to_string(missed) + " missed";
  if (tied) s += ", " + std::to_string(tied) + " tied (within noise)";
  if (defective) s += ", " + std::to_string(defective) + " with a baseline off its tool (no speedup claimed)";
  if (unmeasured) s += ", " + std::to_string(unmeasured) + " not measured";
  return s;
}

// A value against its spec, measured against `baseline` (whose cross-check is `check`).
// raw: the speedup before a tie was judged as 1.0 (0: no tie involved); where `value` holds
// and `raw` does not, the verdict is a tie.
TargetResult judge_target(const TargetSpec& s, const std::string& measured, double value, const std::string& baseline,
                          const CrossCheck& check, double raw) {
  TargetResult t{s.id, measured, s.text(), judge(s.holds(value), check, raw > 0 && !s.holds(raw)), ""};
  t.what = s.what;
  t.origin = s.origin;
  t.baseline = baseline;
  t.check = check;
  return t;
}

TargetResult unmeasured_target(const TargetSpec& s, const std::string& why, const std::string& baseline) {
  TargetResult t{s.id, why, s.text(), Verdict::not_measured, ""};
  t.what = s.what;
  t.origin = s.origin;
  t.baseline = baseline;
  return t;
}

}  // namespace pk
