#pragma once
// Every target the issues stated, declared once (target_specs()) and evaluated from the
// CSVs by the rules of verdict.h: the summaries (transfer_summary.md, the collectives
// summary), the peer-mode comparison, the GEMM study and the report all print these same
// results. Each result names the baseline it was measured against and that baseline's
// cross-check against its own tool; a baseline off its tool turns "met" into
// "baseline off its tool".
#include <string>
#include <utility>
#include <vector>

#include "sweeps/collectives_table.h"
#include "sweeps/fused_table.h"
#include "sweeps/sync_table.h"
#include "sweeps/transfer_table.h"
#include "sweeps/study_schema.h"
#include "sweeps/verdict.h"
// The GEMM study's analysis lives in its folder (registered on its pk_sweeps_study line).
#include "microbench/gemm/gemm_analysis.h"

namespace pk::sweeps {

using pk::gemm::find_gemm;
using pk::gemm::gemm_full_sms;
using pk::gemm::GemmData;
using pk::gemm::GemmRow;
// The GEMM study's CSV, its header checked against every registered study's declaration.
inline GemmData read_gemm(const std::string& path) { return pk::gemm::read_gemm(path, &registered_studies()); }

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
const std::vector<TargetSpec>& target_specs();
const TargetSpec& target_spec(const std::string& id);  // std::logic_error if unknown

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
  // "<measured> (target <target>): **met**<note>" (information lines: "<measured><note>").
  std::string sentence() const;
  // The baseline's cross-check as the report prints it: "-" for absolute targets.
  std::string check_text() const;
};
// The targets as every summary prints them: one table row per target (what and threshold,
// where stated, measured, baseline, its cross-check, verdict), information lines left out.
std::string targets_table_markdown(const std::vector<TargetResult>& targets);
// The information lines ("Also measured:" and a list), "" when none.
std::string targets_info_markdown(const std::vector<TargetResult>& targets);
// The headline count over every target: "31 targets: 13 met, 12 missed, 2 baseline off its
// tool, 4 not measured" (information lines not counted).
std::string target_count_text(const std::vector<TargetResult>& targets);

// Transfer study (transfer_summary.md). elapsed_s < 0: the study's wall time is unknown.
std::vector<TargetResult> transfer_targets(const TransferData& d, const std::vector<MechanismSummary>& s,
                                           double elapsed_s);

// Sync study (sync_summary.md): every latency a median of >= 1000 operations, every row with
// its clock source and measured resolution.
std::vector<TargetResult> sync_targets(const SyncData& d);

// GEMM study (results/*/gemm/README.md): this suite's GEMM >= 0.90x cuBLASLt at 8192^3 on
// the whole GPU, per variant; the other shapes as information.
std::vector<TargetResult> gemm_targets(const GemmData& d);

// Fused study (results/*/fused/README.md): the best fused kernel >= 1.25x cuBLAS then NCCL
// where communication is >= 30 % of it, never more than 3 % slower than the best baseline
// elsewhere; GEMM+RS communication hidden (<= 5 %) from K = 4096 (Table 3's K sweep, may be
// empty).
std::vector<TargetResult> fused_targets(const FusedSummary& f, const std::vector<KSweepRow>& k_sweep);
std::string fused_op_text(const std::string& op);  // "gemm_rs" -> "GEMM+RS"

// Collectives study (results/*/collectives/summary.md): all-reduce speedup bands, busbw at
// 1 GiB, all-gather / reduce-scatter / all-to-all at every size, the tensor-dimension
// variants; over bf16 points of `pts` (one method: the CSV's headline).
std::vector<TargetResult> collectives_targets(const std::vector<CollPoint>& pts, CollMethod method);

// Primitives study (results/*/primitives/): this suite's fastest signal against the fastest
// library signal of the same protocol and memory ordering, its fastest dependent load against
// the library's fastest load at the same placement; one run.
std::vector<TargetResult> primitives_targets(const std::string& csv_path);

// Peer modes: the same studies in several modes (the first is the reference).
struct ModeResults {
  std::string name, dir;
  bool has_transfer = false, has_sync = false;
  TransferData transfer;
  std::vector<MechanismSummary> summary;
  SyncData sync;
  std::string timing;  // timing.txt beside the CSVs, if any
};
// Loads MODE_DIR/transfer.csv and MODE_DIR/sync.csv where present.
ModeResults load_mode(const std::string& name, const std::string& dir);
// The comparison as markdown (peer_modes.md) and its two targets (transfer within 2 %,
// cross-GPU latency within 5 %, counted over every comparison).
std::string peer_modes_markdown(const std::vector<ModeResults>& modes, std::vector<TargetResult>* targets);

}  // namespace pk::sweeps
