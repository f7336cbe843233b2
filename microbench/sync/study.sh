# What the scripts know of the sync study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
# scripts/harness-cost.sh: cross_gpu only, what the virtual ranks add (the other levels are one GPU's).
pk_sync_harness_cost_flags() { printf '%s\n' "$@" --levels=cross_gpu; }
