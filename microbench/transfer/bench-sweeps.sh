#!/usr/bin/env bash
# A benchmark, not a test: how long the sweep drivers take on a million-row transfer CSV
# (the issue's target: under 2 seconds on the 2-core development machine). Generates the CSV
# from a committed run (rows cycled, message sizes shifted, timings jittered; see
# microbench/transfer/transfer_reader_bench_main.cpp), then times the reader + Table-1 summary +
# tuning table in one process, and the two command-line tools end to end.
#   microbench/transfer/bench-sweeps.sh [ROWS] [TEMPLATE_CSV]
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
rows=${1:-1000000}
[[ "$rows" =~ ^[1-9][0-9]*$ ]] || { echo "bench-sweeps.sh: error: ROWS '$rows' is not a positive integer" >&2; exit 2; }
template=${2:-$PKBENCH_ROOT/results/h200x2/transfer/peer-modes/single/transfer.csv}
[ -f "$template" ] || { echo "bench-sweeps.sh: error: no such file: $template" >&2; exit 2; }
tools=$(pk_bin_dir)
[ -x "$tools/pkbench_transfer_reader_bench" ] || pk_build pkbench_transfer_reader_bench pkbench_transfer_summary pkbench_tune
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pk_log "generating $rows rows from $template"
"$tools/pkbench_transfer_reader_bench" --generate "$rows" "$template" "$work/transfer.csv"
pk_log "$(du -h "$work/transfer.csv" | cut -f1) CSV; $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cat "$work/transfer.csv" > /dev/null  # page cache warm: the timings measure the drivers, not the disk
for i in 1 2 3; do
  pk_log "run $i: $("$tools/pkbench_transfer_reader_bench" "$work/transfer.csv")"
done
t() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
pk_log "pkbench_transfer_summary (read, Table 1, markdown, tuning CSV): $(t "$tools/pkbench_transfer_summary" "$work/transfer.csv" "$work") s"
pk_log "pkbench_tune (read, tuning table, CSV + JSON + header): $(t "$tools/pkbench_tune" --out "$work" "$work/transfer.csv") s"
