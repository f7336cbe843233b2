#!/usr/bin/env bash
# killed_rank.sh SYNC_BINARY MPIRUN...: a rank killed in the middle of a two-rank run ends
# the whole run within a few seconds with a non-zero exit, instead of leaving the other
# rank spinning. The kill comes from the study's fault hook (PKBENCH_FAULT_KILL_RANK: that
# rank sends itself SIGKILL when its PKBENCH_FAULT_KILL_AT-th point starts).
bin=$1
shift
source "$(dirname "$0")/gpu_lib.sh"
pk_need_gpus 2
export PKBENCH_FAULT_KILL_RANK=1 PKBENCH_FAULT_KILL_AT=3
csv=$(mktemp -d)/sync.csv
start=$(date +%s.%N)
"$@" -x PKBENCH_FAULT_KILL_RANK -x PKBENCH_FAULT_KILL_AT "${pk_no_multicast_x[@]}" "$bin" \
  --peer-mode=ipc --levels=cross_gpu --iters=1000 --csv="$csv" \
  > "$csv.log" 2>&1
rc=$?
end=$(date +%s.%N)
tail -n 15 "$csv.log"
[ "$rc" -ne 0 ] || { echo "FAIL: the run exited 0 although rank 1 was killed"; exit 1; }
killed=$(sed -n 's/.*fault hook: rank 1 kills itself at \([0-9.]*\).*/\1/p' "$csv.log" | head -n1)
[ -n "$killed" ] || { echo "FAIL: rank 1 never reached its fault hook"; exit 1; }
after=$(awk -v a="$end" -v b="$killed" 'BEGIN { printf "%.2f", a - b }')
echo "mpirun exited $rc, ${after}s after rank 1 was killed (whole run $(awk -v a="$end" -v b="$start" 'BEGIN { printf "%.1f", a - b }')s)"
awk -v e="$after" 'BEGIN { exit !(e < 5) }' || { echo "FAIL: the others ran on for ${after}s"; exit 1; }
grep -q "killed\|signal 9\|exited on signal" "$csv.log" || echo "note: launcher message not recognised"
echo "ok"
