#pragma once
// A target as an issue stated it, and its result from the CSVs by the rules of verdict.h: each
// study's analysis declares its own targets (microbench/<study>/) and evaluates them; every
// summary and the sweeps' report print the results the same way (targets_table_markdown).
// Each result names the baseline it was measured against and that baseline's cross-check
// against its own tool; a baseline off its tool turns "met" into "baseline off its tool".
#include <string>
#include <utility>
#include <vector>

#include "microbench/harness/verdict.h"

namespace pk {

// A target as stated: "<what> <op> <value><unit>".
struct TargetSpec {
  std::string id;      // "transfer.device_vs_ce"
  std::string origin;  // where it was stated
  std::string what;
  std::string op;      // ">=" or "<="
  double value = 0;
  std::string unit;    // "", " %", " SMs", " s"
  std::string text() const;  // ">= 0.97", "<= 16 SMs"
  bool holds(double measured) const;
};
// A study's targets, declared once: spec(id) looks one up (std::logic_error if unknown).
class TargetSpecs {
 public:
  TargetSpecs(std::vector<TargetSpec> specs) : specs_(std::move(specs)) {}
  const TargetSpec& operator()(const std::string& id) const;
  auto begin() const { return specs_.begin(); }
  auto end() const { return specs_.end(); }

 private:
  std::vector<TargetSpec> specs_;
};

struct TargetResult {
  TargetResult() = default;
  TargetResult(std::string id_, std::string measured_, std::string target_, Verdict verdict_, std::string note_)
      : id(std::move(id_)), measured(std::move(measured_)), target(std::move(target_)), verdict(verdict_),
        note(std::move(note_)) {}
  std::string id;        // the spec's id ("" for information lines)
  std::string measured;  // "push: best device-initiated mechanism (...) = 0.941"
  std::string target;    // spec text, "" for information lines
  Verdict verdict = Verdict::info;
  std::string note;      // after the verdict
  std::string baseline;  // what the figure was measured against ("": an absolute target)
  CrossCheck check;      // that baseline's cross-check against its own tool
  std::string what, origin;  // the spec's (judge_target, unmeasured_target)
  // "<measured> (target <target>): **met**<note>" (information lines: "<measured><note>").
  std::string sentence() const;
  // The baseline's cross-check as the report prints it: "-" for absolute targets.
  std::string check_text() const;
};

// A value against its spec, measured against `baseline` (whose cross-check is `check`).
// raw: the speedup before a tie was judged as 1.0 (0: no tie involved); where `value` holds
// and `raw` does not, the verdict is a tie.
TargetResult judge_target(const TargetSpec& spec, const std::string& measured, double value,
                          const std::string& baseline = "", const CrossCheck& check = {}, double raw = 0);
// A target with nothing to judge it on: `why`.
TargetResult unmeasured_target(const TargetSpec& spec, const std::string& why, const std::string& baseline = "");

// The targets as every summary prints them: one table row per target (what and threshold,
// where stated, measured, baseline, its cross-check, verdict), information lines left out.
std::string targets_table_markdown(const std::vector<TargetResult>& targets);
// The information lines ("Also measured:" and a list), "" when none.
std::string targets_info_markdown(const std::vector<TargetResult>& targets);
// The headline count over every target: "31 targets: 13 met, 12 missed, 2 baseline off its
// tool, 4 not measured" (information lines not counted).
std::string target_count_text(const std::vector<TargetResult>& targets);

}  // namespace pk
