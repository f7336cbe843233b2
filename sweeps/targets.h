#pragma once
// The peer-mode comparison's targets (judged here: it spans the transfer and sync studies) and
// the list of every study's (target_specs()): each study declares and judges its own in its
// analysis (microbench/<study>/), by the rules of microbench/harness/targets.h and verdict.h.
// The summaries, the peer-mode comparison and the report all print these same results.
#include <string>
#include <utility>
#include <vector>

#include "microbench/collectives/collectives_analysis.h"
#include "microbench/fused/fused_analysis.h"
#include "microbench/primitives/primitives_targets.h"
#include "microbench/sync/sync_analysis.h"
#include "microbench/transfer/transfer_analysis.h"
#include "microbench/harness/targets.h"
#include "sweeps/study_schema.h"
// The GEMM study's analysis lives in its folder (registered on its pk_sweeps_study line).
#include "microbench/gemm/gemm_analysis.h"

namespace pk::sweeps {

// The studies' analyses (microbench/<study>/<study>_analysis.h), as the peer modes and the
// report use them.
using pk::coll::CollectiveComparison;
using pk::coll::CollectiveSpeedup;
using pk::coll::CollMethod;
using pk::coll::CollPoint;
using pk::coll::CollSide;
using pk::coll::CollectivesData;
using pk::coll::TunedPoint;
using pk::coll::best_speedup_over_nccl;
using pk::coll::coll_method_text;
using pk::coll::collective_comparisons;
using pk::coll::collective_points;
using pk::coll::collectives_targets;
using pk::coll::collectives_tuning;
using pk::coll::find_point;
using pk::coll::headline_method;
using pk::coll::read_collectives_info;
using pk::coll::tuned_points;
using pk::fused::FusedShape;
using pk::fused::FusedSummary;
using pk::fused::FusedTuned;
using pk::fused::KSweepRow;
using pk::fused::fused_k_sweep;
using pk::fused::fused_op_text;
using pk::fused::fused_summary;
using pk::fused::fused_targets;
using pk::fused::fused_tuned_points;
using pk::fused::fused_tuning;
using pk::sync::find_sync;
using pk::sync::read_sync;
using pk::sync::sync_targets;
using pk::sync::SyncData;
using pk::sync::SyncRow;
using pk::transfer::best_at;
using pk::transfer::find_summary;
using pk::transfer::local_ceiling;
using pk::transfer::MechanismSummary;
using pk::transfer::read_transfer;
using pk::transfer::summarize_mechanisms;
using pk::transfer::transfer_targets;
using pk::transfer::transfer_tuning;
using pk::transfer::TransferData;
using pk::transfer::TransferRow;

using pk::gemm::find_gemm;
using pk::gemm::gemm_full_sms;
using pk::gemm::GemmData;
using pk::gemm::gemm_targets;
using pk::gemm::GemmRow;
// The GEMM study's CSV, its header checked against every registered study's declaration.
inline GemmData read_gemm(const std::string& path) { return pk::gemm::read_gemm(path, &registered_studies()); }

// Every target of every study (the studies' own lists and the ones judged here); the spec of
// `id` among them (std::logic_error if unknown).
const TargetSpecs& target_specs();
const TargetSpec& target_spec(const std::string& id);

// The primitives study's targets (microbench/primitives/primitives_targets.h), its CSV's
// header checked against every registered study's declaration.
inline std::vector<TargetResult> primitives_targets(const std::string& csv_path) {
  return pk::prim::primitives_targets(csv_path, &registered_studies());
}

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
