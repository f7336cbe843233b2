#!/usr/bin/env bash
# hostile_csv.sh BIN_DIR FIXTURE_DIR TOOL...: the sweep tools on CSVs a user might hand them
# by mistake (TOOL...: every sweep tool, for --help; BIN_DIR holds the study binaries too). Each case: the exit code, a pattern in the output, never a crash (a signal
# exits >= 128) or an output bigger than a screenful. A malformed CSV exits 2 in every tool
# (bad input, as a bad argument; csv_table.h's CsvError).
set -u
bin=$1 fix=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CHECK_MAX_CHARS=4000
source "$(dirname "$0")/check_lib.sh"
t=$fix/transfer_fixture.csv
# Every ok row's gbps negated: the tools that crashed on it (transfer_tuning's empty band).
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "gbps") g = i; if ($i == "status") s = i } print; next }
         { if ($s == "ok") $g = "-" $g; print }' "$t" >"$work/neg.csv"
mkdir -p "$work/out" "$work/res"
check "summary: negative gbps" 2 "neg.csv:2:[0-9]+: column 'gbps': '-[0-9.]+' is negative" \
  "$bin/pkbench_transfer_summary" "$work/neg.csv" "$work/out"
check "tune: negative gbps" 2 "is negative" "$bin/pkbench_tune" --out "$work/out" "$work/neg.csv"
cp "$work/neg.csv" "$work/res/transfer.csv"
check "report: negative gbps" 0,1 "." "$bin/pkbench_report" "$work/res" --out "$work/out/REPORT.md"
# A 50 MB line (and a 50 MB header): refused by the reader's line limit, file and line named.
{ head -n 1 "$t"; head -c 50000000 /dev/zero | tr '\0' 'x'; echo; } >"$work/huge.csv"
check "summary: a 50 MB line" 2 "huge.csv:2: line longer than" "$bin/pkbench_transfer_summary" "$work/huge.csv" "$work/out"
{ printf 'study,'; head -c 50000000 /dev/zero | tr '\0' 'y'; printf ',study\n'; } >"$work/hugeheader.csv"
check "summary: a 50 MB column name twice" 2 "hugeheader.csv:1: line longer than" "$bin/pkbench_transfer_summary" "$work/hugeheader.csv" "$work/out"
# The same part twice, by the same or another name, is refused, never merged twice.
check "merge: one part twice" 2 "are the same part" "$bin/pkbench_merge" "$work/m.csv" "$t" "$t"
check "merge: one part twice by two names" 2 "are the same part" "$bin/pkbench_merge" "$work/m.csv" "$t" "$fix/../fixtures/transfer_fixture.csv"
cp "$t" "$work/copy.csv"
check "merge: a copy of a part" 2 "copy.csv:2: the same row as" "$bin/pkbench_merge" "$work/m.csv" "$t" "$work/copy.csv"
[ -e "$work/m.csv" ] && { echo "FAIL merge wrote $work/m.csv after refusing"; fails=$((fails + 1)); }
# Outputs go into folders that exist; the tools never create a missing tree.
check "summary: OUT_DIR under a missing folder" 2 "folder '$work/no' does not exist" \
  "$bin/pkbench_transfer_summary" "$t" "$work/no/such"
check "sync summary: OUT_DIR under a missing folder" 2 "does not exist" \
  "$bin/pkbench_sync_summary" "$fix/sync_fixture.csv" "$work/no/such"
check "tune: --out under a missing folder" 2 "--out=$work/no/x: folder '$work/no' does not exist" \
  "$bin/pkbench_tune" --out "$work/no/x" "$t"
check "report: --out under a missing folder" 2 "does not exist" "$bin/pkbench_report" "$work/res" --out "$work/no/R.md"
check "merge: OUT under a missing folder" 2 "does not exist" "$bin/pkbench_merge" "$work/no/m.csv" "$t"
check "peer_modes: OUT under a missing folder" 2 "does not exist" "$bin/pkbench_peer_modes" "$work/no/p.md" "a=$work" "b=$work"
check "compare: --out under a missing folder" 2 "does not exist" "$bin/pkbench_compare" "$work/res" "$work/res" --out "$work/no/c.md"
[ -e "$work/no" ] && { echo "FAIL a tool created $work/no"; fails=$((fails + 1)); }
# Every tool answers --help with its usage and exit 0.
for tool in "$@"; do
  check "$(basename "$tool") --help" 0 "usage" "$tool" --help
done
[ "$fails" -eq 0 ] || { echo "$fails case(s) failed"; exit 1; }
