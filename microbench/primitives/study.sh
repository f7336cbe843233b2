# What the scripts know of the primitives study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_primitives_runs_ranks=1
pk_primitives_uses_nvshmem=1
pk_primitives_derive_targets() { echo pkbench_primitives_summary; }
