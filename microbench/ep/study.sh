# What the scripts know of the ep study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_ep_runs_ranks=1
pk_ep_derive_targets() { echo pkbench_ep_summary; }
# scripts/harness-cost.sh: the smoke preset (scripts/run.sh's one-GPU profile).
pk_ep_harness_cost_flags() { printf '%s\n' "$@" --preset=smoke; }
# pk_ep_regenerate DIR TOOLS (scripts/regenerate.sh): the ep summary.
pk_ep_regenerate() { pk_summarize ep "$@"; }
# scripts/run.sh's one-GPU profile: two virtual ranks, the smoke preset.
pk_ep_one_gpu() {
  local dir=$1
  shift
  run_study ep "$dir/virtual/ep_virtual.csv" "$@" --preset=smoke
}
