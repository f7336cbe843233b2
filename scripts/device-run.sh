#!/usr/bin/env bash
# One call on a lent GPU machine (the `device` tool): build, run the GPU tests, run the
# studies, and pack everything into $OUT (the tool returns at most 8 files).
#   PKBENCH_GIT_COMMIT=<sha> bash scripts/device-run.sh [STUDY [study flags...]]
# With no STUDY every study runs with its default grid.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${OUT:?device-run.sh writes to \$OUT}"
export PKBENCH_BUILD_DIR=${PKBENCH_BUILD_DIR:-/tmp/pkbench-build}
# The lent machines reach no network: run.sh only reports what is missing (carry .deps).
export PKBENCH_NO_INSTALL=${PKBENCH_NO_INSTALL:-1}
start=$(date +%s)
machine=$(pk_machine_name) || { echo "no GPU" >&2; exit 3; }
res=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
mkdir -p "$res"
{
  nvidia-smi
  pk_build 2>&1 | tail -n 5
  echo "build done after $(( $(date +%s) - start ))s"
} > "$OUT/build.log" 2>&1
# run.sh's own build is then a no-op: tell it how long the build took so that the study's
# "wall time including the build" stays true.
export PKBENCH_BUILD_SECONDS=$(( $(date +%s) - start ))
ctest --test-dir "$PKBENCH_BUILD_DIR" -L gpu --output-on-failure --timeout 300 > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$? after $(( $(date +%s) - start ))s" >> "$OUT/build.log"
# Bounded so that whatever finished is still packed before the device call's own limit.
PKBENCH_OUT="$res" timeout "${PKBENCH_RUN_TIMEOUT:-480}" "$PKBENCH_ROOT/scripts/run.sh" "$@" > "$OUT/run.log" 2>&1
echo "run rc=$? after $(( $(date +%s) - start ))s" >> "$OUT/build.log"
tar czf "$OUT/results.tgz" -C "$(dirname "$res")" "$(basename "$res")"
tail -n 3 "$OUT/gpu_tests.log"; tail -n 25 "$OUT/run.log"; cat "$OUT/build.log" | tail -n 4
