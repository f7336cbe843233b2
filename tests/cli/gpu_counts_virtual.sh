#!/usr/bin/env bash
# A GPU-count sweep on one GPU with virtual ranks: BIN --peer-mode=virtual --ranks=RANKS
# --gpu-counts=all ARGS into a CSV, which must hold rows at every count 2..RANKS (column gpus),
# each ok or skipped with a reason (NCCL and NVSHMEM need one device per rank), none an error.
# No GPU: exit 3 (ctest counts it skipped).
#   gpu_counts_virtual.sh RANKS BIN ARGS...
set -uo pipefail
ranks=${1:?ranks} bin=${2:?binary}
shift 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$bin" --peer-mode=virtual --ranks="$ranks" --gpu-counts=all --csv="$T/out.csv" "$@" > "$T/log" 2>&1
rc=$?
[ $rc = 3 ] && { echo "no GPU: skipped"; tail -3 "$T/log"; exit 3; }
[ $rc = 0 ] || { echo "FAIL: exit $rc"; tail -40 "$T/log"; exit 1; }
awk -F, -v ranks="$ranks" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { seen[$c["gpus"]]++; st[$c["status"]]++; if ($c["status"] == "error") { print "error row: " $0; bad = 1 } }
  END {
    for (k = 2; k <= ranks; k++) if (!seen[k]) { print "no row at " k " GPUs"; bad = 1 }
    if (!st["ok"]) { print "no ok row"; bad = 1 }
    for (k in seen) printf "%s GPUs: %d rows\n", k, seen[k]
    exit bad }' "$T/out.csv" || { echo FAIL; exit 1; }
echo PASS
