# Sourced by the transfer CLI tests: stand-ins for pkbench_transfer and nvbandwidth.
# pk_stub_transfer FILE FIXTURE: a pkbench_transfer that writes (--csv=) four rows of two GPUs
# with the fixture's columns: three shaped as nvbandwidth testcases (ce push and pull one-way,
# reg bidir) and a fig2 row without a counterpart; it refuses any preset but $STUB_PRESET where
# that is set (exit 9).
pk_stub_transfer() {
  cat > "$1" <<'STUDY'
#!/usr/bin/env bash
FIXTURE=@FIXTURE@
csv= preset=
for a in "$@"; do case $a in --csv=*) csv=${a#--csv=} ;; --preset=*) preset=${a#--preset=} ;; esac; done
[ -z "${STUB_PRESET:-}" ] || [ "$preset" = "$STUB_PRESET" ] || { echo "study got $*" >&2; exit 9; }
B=536870912
# The study's own columns (the fixture's header, the reference columns after it), each row by name.
header=$(head -1 "$FIXTURE")
for c in gpus_used ref_tool ref_gbps ref_ratio; do [[ ",$header," == *",$c,"* ]] || header+=",$c"; done
row() {
  declare -A v=([study]=transfer [status]=ok [verified]=yes [gpu_name]="NVIDIA H100" [gpu_count]=2 [host]=h
                [line_rate_gbps]=450 [gpus_used]=2 [bytes_per_op]=$B [message_bytes]=$B [flows]=1 [src_gpu]=0 [dst_gpu]=1)
  for kv in "$@"; do v[${kv%%=*}]=${kv#*=}; done
  local line= c
  for c in ${header//,/ }; do line+="${v[$c]:-},"; done
  echo "${line%,}"
}
{
  echo "$header"
  row sweep=nvbandwidth mechanism=ce direction=push pattern=one_way gbps=370
  row sweep=nvbandwidth mechanism=ce direction=pull pattern=one_way gbps=300
  row sweep=nvbandwidth mechanism=reg direction=push pattern=bidir flows=2 message_bytes=65536 sms=132 threads=512 gbps=330
  row sweep=fig2 mechanism=reg direction=push pattern=one_way message_bytes=65536 bytes_per_op=1073741824 sms=132 gbps=360
} > "$csv"
STUDY
  sed -i "s|@FIXTURE@|$2|" "$1"
  chmod +x "$1"
}
# pk_stub_nvbandwidth FILE: an nvbandwidth whose -j output has the three testcases' matrices for
# two GPUs; each run appends its arguments to tool_args beside it; exit 3 with half an output
# where $STUB_NVB_FAIL=1.
pk_stub_nvbandwidth() {
  cat > "$1" <<'TOOL'
#!/usr/bin/env bash
echo "$*" >> "$(dirname "$0")/tool_args"
[ "${STUB_NVB_FAIL:-0}" = 1 ] && { echo '{ "nvbandwidth" : {'; echo "nvbandwidth: CUDA error" >&2; exit 3; }
cat <<'JSON'
{ "nvbandwidth" : { "version" : "v0.8", "testcases" : [
  { "name" : "device_to_device_memcpy_write_ce", "status" : "Passed", "bandwidth_matrix" : [ [ "N/A", "375" ], [ "376", "N/A" ] ] },
  { "name" : "device_to_device_memcpy_read_ce", "status" : "Passed", "bandwidth_matrix" : [ [ "N/A", "350" ], [ "360", "N/A" ] ] },
  { "name" : "device_to_device_bidirectional_memcpy_write_sm", "status" : "Passed", "bandwidth_matrix" : [
      [ "N/A", "1" ], [ "1", "N/A" ], [ "N/A", "1" ], [ "1", "N/A" ], [ "N/A", "666" ], [ "666", "N/A" ] ] } ] } }
JSON
TOOL
  chmod +x "$1"
}
