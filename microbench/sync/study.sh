# What the scripts know of the sync study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
# scripts/harness-cost.sh: cross_gpu only, what the virtual ranks add (the other levels are one GPU's).
pk_sync_harness_cost_flags() { printf '%s\n' "$@" --levels=cross_gpu; }
pk_sync_regenerate_tools() { echo pkbench_sync_summary; }
# pk_sync_regenerate DIR TOOLS (scripts/regenerate.sh): the sync summary.
pk_sync_regenerate() {
  [ -f "$1/sync/sync.csv" ] || return 0
  "$2/pkbench_sync_summary" "$1/sync/sync.csv" "$1/sync" > /dev/null
}
# scripts/run.sh's one-GPU profile: intra- and inter-SM sync, and across two virtual ranks.
pk_sync_one_gpu() {
  local dir=$1
  shift
  run_study sync "$dir/sync.csv" --iters=1000
  run_study sync "$dir/virtual/sync_virtual.csv" "$@" --levels=cross_gpu --iters=1000
}
# scripts/run.sh --quick on several GPUs: 1000 iterations per variant.
pk_sync_quick() { run_study sync "$1/sync.csv" --iters=1000; }
