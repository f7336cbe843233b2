# What the scripts know of the primitives study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_primitives_runs_ranks=1
pk_primitives_uses_nvshmem=1
pk_primitives_derive_targets() { echo pkbench_primitives_summary; }
# pk_primitives_regenerate DIR TOOLS (scripts/regenerate.sh): the library-primitives summary: the
# study's main CSV, its rerun (run-to-run noise) and its one-process run where measured.
pk_primitives_regenerate() {
  local prim=$1/primitives more=() f
  [ -f "$prim/primitives.csv" ] || return 0
  for f in primitives_rerun primitives_single; do [ -f "$prim/$f.csv" ] && more+=("$prim/$f.csv"); done
  if [ -x "$2/pkbench_primitives_summary" ]; then
    "$2/pkbench_primitives_summary" "$prim/primitives.csv" "$prim" ${more[@]+"${more[@]}"} > /dev/null
  else
    pk_log "pkbench_primitives_summary is not built here: primitives/primitives_summary.md not rewritten"; return 1
  fi
}
# scripts/run.sh's one-GPU profile: two virtual ranks.
pk_primitives_one_gpu() {
  local dir=$1
  shift
  run_study primitives "$dir/virtual/primitives_virtual.csv" "$@"
}
