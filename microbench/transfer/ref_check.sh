#!/usr/bin/env bash
# The transfer study's copy-engine and SM-copy rows checked against nvbandwidth's own
# testcases in one invocation: the study (PRESET, default its nvbandwidth preset: nvbandwidth's
# 512 MiB per copy, every pair of GPUs, one-to-all and all-to-one on three or more), then
# nvbandwidth -j on the testcases those rows have counterparts in (pkbench_transfer_ref --run,
# transfer_ref.h), REPEATS times, its output in OUT_DIR/nvbandwidth*.json, the tool's figures merged into the
# rows (ref_tool, ref_gbps, ref_ratio = gbps / the tool's; several runs: their median) and the
# transfer summary prints the cross-check of every such row (the sweeps' one rule, within 5 %).
#   microbench/transfer/ref_check.sh OUT_DIR [extra pkbench_transfer flags]
# Environment (defaults in brackets):
#   PKBENCH_NVBANDWIDTH  the nvbandwidth binary [nvbandwidth on PATH] (scripts/build-ref-tools.sh)
#   BUILD [$PKBENCH_BUILD_DIR, else build]; BIN, REF, SUMMARY override pkbench_transfer, pkbench_transfer_ref,
#   pkbench_transfer_summary        PRESET [nvbandwidth]        REPEATS [1] runs of the tool
# Exit: the study's or the tool's failure, else pkbench_transfer_ref's (1: no row matched).
set -uo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
cd "$PKBENCH_ROOT"
pk_ref_check_begin pkbench_transfer pkbench_transfer_ref "${1:?usage: ref_check.sh OUT_DIR [pkbench_transfer flags]}"
shift
SUMMARY=${SUMMARY:-$BUILD/bin/pkbench_transfer_summary}
PRESET=${PRESET:-nvbandwidth}
REPEATS=${REPEATS:-1}
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS=$REPEATS: a positive integer" >&2; exit 2; }
NVB=${PKBENCH_NVBANDWIDTH:-$(command -v nvbandwidth || true)}
[ -n "$NVB" ] && [ -x "$NVB" ] || { echo "nvbandwidth: not on PATH and PKBENCH_NVBANDWIDTH unset (scripts/build-ref-tools.sh builds it)" >&2; exit 2; }

echo "== pkbench_transfer --preset=$PRESET $*"
"$BIN" --preset="$PRESET" --csv="$O/study.csv" "$@" > "$O/study.log" 2>&1
pk_exit_on_failure $? pkbench_transfer "$O/study.log"
[ -n "$("$REF" --plan --csv="$O/study.csv")" ] || { echo "no row of $O/study.csv has an nvbandwidth counterpart" >&2; exit 1; }
echo "== nvbandwidth on the rows' testcases, $REPEATS run(s), then the ratios (gbps / nvbandwidth's figure in the same unit)"
rm -f "$O/transfer_ref.csv"  # an earlier check's, which the summary below must not read
"$REF" --csv="$O/study.csv" --out="$O/transfer_ref.csv" --buffer=512M --run="$NVB" --repeats="$REPEATS" \
  --json="$O/nvbandwidth.json" 2> "$O/nvbandwidth.log" | tee "$O/ratios.txt"
rc=${PIPESTATUS[0]}
[ -f "$O/transfer_ref.csv" ] || pk_exit_on_failure "$rc" "nvbandwidth or pkbench_transfer_ref" "$O/nvbandwidth.log"
mkdir -p "$O/summary"
"$SUMMARY" "$O/transfer_ref.csv" "$O/summary" > /dev/null &&
  sed -n '/^## Against nvbandwidth/,/^## Targets/p' "$O/summary/transfer_summary.md" | sed '$d' | tee -a "$O/ratios.txt"
exit $rc
