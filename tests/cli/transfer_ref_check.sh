#!/usr/bin/env bash
# microbench/transfer/ref_check.sh wired end to end without a GPU: stand-ins for
# pkbench_transfer (rows shaped as nvbandwidth's testcases, and one without a counterpart) and
# nvbandwidth (its -j output for two GPUs) check that the script runs the study on its
# nvbandwidth preset, runs the tool on exactly the testcases the rows have counterparts in
# (pkbench_transfer_ref --plan) with its 512 MiB buffer, merges with the real
# pkbench_transfer_ref (ref_tool, ref_gbps, ref_ratio) and prints the sweeps' cross-check.
#   transfer_ref_check.sh <repo root> <pkbench_transfer_ref> <pkbench_transfer_summary>
set -uo pipefail
ROOT=$1 REF=$2 SUMMARY=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat > "$T/study" <<'STUDY'
#!/usr/bin/env bash
FIXTURE=@FIXTURE@
csv= preset=
for a in "$@"; do case $a in --csv=*) csv=${a#--csv=} ;; --preset=*) preset=${a#--preset=} ;; esac; done
[ "$preset" = nvbandwidth ] || { echo "study got $*" >&2; exit 9; }
B=536870912
# The study's own columns (the fixture's header, the reference columns after it), each row by name.
header=$(head -1 "$FIXTURE")
for c in gpus_used ref_tool ref_gbps ref_ratio; do [[ ",$header," == *",$c,"* ]] || header+=",$c"; done
row() {
  declare -A v=([study]=transfer [status]=ok [verified]=yes [gpu_name]="NVIDIA H100" [gpu_count]=2 [host]=h
                [line_rate_gbps]=450 [gpus_used]=2 [bytes_per_op]=$B [message_bytes]=$B [flows]=1 [src_gpu]=0 [dst_gpu]=1)
  for kv in "$@"; do v[${kv%%=*}]=${kv#*=}; done
  local out= c
  for c in ${header//,/ }; do out+="${v[$c]:-},"; done
  echo "${out%,}"
}
{
  echo "$header"
  row sweep=nvbandwidth mechanism=ce direction=push pattern=one_way gbps=370
  row sweep=nvbandwidth mechanism=ce direction=pull pattern=one_way gbps=300
  row sweep=nvbandwidth mechanism=reg direction=push pattern=bidir flows=2 message_bytes=65536 sms=132 threads=512 gbps=330
  row sweep=fig2 mechanism=reg direction=push pattern=one_way message_bytes=65536 bytes_per_op=1073741824 sms=132 gbps=360
} > "$csv"
STUDY
cat > "$T/nvbandwidth" <<'TOOL'
#!/usr/bin/env bash
echo "$*" > "$(dirname "$0")/tool_args"
cat <<'JSON'
{ "nvbandwidth" : { "version" : "v0.8", "testcases" : [
  { "name" : "device_to_device_memcpy_write_ce", "status" : "Passed", "bandwidth_matrix" : [ [ "N/A", "375" ], [ "376", "N/A" ] ] },
  { "name" : "device_to_device_memcpy_read_ce", "status" : "Passed", "bandwidth_matrix" : [ [ "N/A", "350" ], [ "360", "N/A" ] ] },
  { "name" : "device_to_device_bidirectional_memcpy_write_sm", "status" : "Passed", "bandwidth_matrix" : [
      [ "N/A", "1" ], [ "1", "N/A" ], [ "N/A", "1" ], [ "1", "N/A" ], [ "N/A", "666" ], [ "666", "N/A" ] ] } ] } }
JSON
TOOL
sed -i "s|@FIXTURE@|$ROOT/tests/fixtures/transfer_fixture.csv|" "$T/study"
chmod +x "$T/study" "$T/nvbandwidth"
out=$(BIN="$T/study" REF="$REF" SUMMARY="$SUMMARY" PKBENCH_NVBANDWIDTH="$T/nvbandwidth" \
      bash "$ROOT/microbench/transfer/ref_check.sh" "$T/out" 2>&1)
rc=$?
echo "$out"
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
grep -q "^## Against nvbandwidth" <<< "$out" || fail "no cross-check section printed"
grep -q "off by 16.7 %" <<< "$out" || fail "the pull row is not judged off its tool"
echo PASS
