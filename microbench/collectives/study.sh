# What the scripts know of the collectives study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_collectives_runs_ranks=1
pk_collectives_uses_nvshmem=1
pk_collectives_derive_targets() { echo pkbench_collectives_summary; }
# The main preset (the exhaustive grid stays the full preset); on three or more GPUs the
# GPU-count sweep 2..N in the same run (the scaling figure).
pk_collectives_main_flags() {
  echo --preset=main
  [ "$1" -ge 3 ] && echo --gpu-counts=all
  true
}
