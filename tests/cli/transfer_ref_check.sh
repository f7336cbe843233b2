#!/usr/bin/env bash
# microbench/transfer/ref_check.sh wired end to end without a GPU: stand-ins for
# pkbench_transfer (rows shaped as nvbandwidth's testcases, and one without a counterpart) and
# nvbandwidth (its -j output for two GPUs) check that the script runs the study on its
# nvbandwidth preset, runs the tool on exactly the testcases the rows have counterparts in
# (pkbench_transfer_ref --run) with its 512 MiB buffer, merges with the real
# pkbench_transfer_ref (ref_tool, ref_gbps, ref_ratio) and prints the sweeps' cross-check.
#   transfer_ref_check.sh <repo root> <pkbench_transfer_ref> <pkbench_transfer_summary>
set -uo pipefail
ROOT=$1 REF=$2 SUMMARY=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
source "$(dirname "$0")/transfer_stubs.sh"
pk_stub_transfer "$T/study" "$ROOT/tests/fixtures/transfer_fixture.csv"
pk_stub_nvbandwidth "$T/nvbandwidth"
printed=$(STUB_PRESET=nvbandwidth BIN="$T/study" REF="$REF" SUMMARY="$SUMMARY" PKBENCH_NVBANDWIDTH="$T/nvbandwidth" \
      bash "$ROOT/microbench/transfer/ref_check.sh" "$T/out" 2>&1)
rc=$?
echo "$printed"
fail() { echo "FAIL: $*"; exit 1; }
[ $rc = 0 ] || fail "ref_check.sh exited $rc"
[ "$(cat "$T/tool_args")" = "-j -b 512 -t device_to_device_bidirectional_memcpy_write_sm device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce" ] ||
  fail "the tool ran with: $(cat "$T/tool_args")"
csv=$T/out/transfer_ref.csv
# Written back line for line: no blank line between the rows (each line ended twice before).
[ "$(grep -c '^$' "$csv")" = 0 ] || fail "blank lines in the merged CSV"
# ce push 0->1: 370 / 375; ce pull 0->1 (issued by GPU1: the read matrix's row 1): 300 / 360;
# reg bidir: 330 / (666 / 2); the fig2 row has no counterpart.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { print $c["mechanism"] "/" $c["direction"] "/" $c["pattern"] "/" $c["sweep"] "=" $c["ref_gbps"] "," $c["ref_ratio"] }' "$csv" > "$T/refs"
grep -qx "ce/push/one_way/nvbandwidth=375,0.9867" "$T/refs" || fail "ce push: $(cat "$T/refs")"
grep -qx "ce/pull/one_way/nvbandwidth=360,0.8333" "$T/refs" || fail "ce pull: $(cat "$T/refs")"
grep -qx "reg/push/bidir/nvbandwidth=333,0.9910" "$T/refs" || fail "reg bidir: $(cat "$T/refs")"
grep -qx "reg/push/one_way/fig2=," "$T/refs" || fail "fig2: $(cat "$T/refs")"
grep -q "^## Against nvbandwidth" <<< "$printed" || fail "no cross-check section printed"
grep -q "off by 16.7 %" <<< "$printed" || fail "the pull row is not judged off its tool"
# Again into the same folder with a tool that fails: the script fails, saying so, and does not
# print the earlier check's cross-check.
printed=$(STUB_NVB_FAIL=1 STUB_PRESET=nvbandwidth BIN="$T/study" REF="$REF" SUMMARY="$SUMMARY" PKBENCH_NVBANDWIDTH="$T/nvbandwidth" \
      bash "$ROOT/microbench/transfer/ref_check.sh" "$T/out" 2>&1)
rc=$?
[ $rc != 0 ] || fail "a failing nvbandwidth: ref_check.sh exited 0"
grep -q "nvbandwidth or pkbench_transfer_ref failed" <<< "$printed" || fail "a failing nvbandwidth: not said: $printed"
grep -q "CUDA error" <<< "$printed" || fail "a failing nvbandwidth: its error not shown: $printed"
! grep -q "^## Against nvbandwidth" <<< "$printed" || fail "a failing nvbandwidth: the earlier cross-check printed"
echo PASS
