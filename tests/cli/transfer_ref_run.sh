#!/usr/bin/env bash
# pkbench_transfer_ref --run without a GPU: the real tool runs a stand-in nvbandwidth on the
# testcases a stand-in study's rows have counterparts in, keeps its output (one file, or one per
# run with --repeats), merges the figures; a tool that fails or cannot start leaves no output
# file and the CSV as it was (exit 1); rows without a counterpart run nothing (exit 0); the flags
# that do not go together are refused first (exit 2). Then scripts/run.sh transfer on two
# stand-in GPUs: its after-main step is that one command, named in command.txt.
#   transfer_ref_run.sh SOURCE_DIR PKBENCH_TRANSFER_REF
set -uo pipefail
src=${1:?source dir}
REF=$(realpath "${2:?the built pkbench_transfer_ref}")
source "$(dirname "$0")/check_lib.sh"
source "$(dirname "$0")/transfer_stubs.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/nvb" "$T/path" "$T/build/bin"
pk_stub_transfer "$T/study" "$src/tests/fixtures/transfer_fixture.csv"
pk_stub_nvbandwidth "$T/nvb/nvbandwidth"
"$T/study" --csv="$T/rows.csv"
tcs="device_to_device_bidirectional_memcpy_write_sm device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce"
refs() {  # the merged CSV's reference cells, one row a line
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["mechanism"] "/" $c["direction"] "=" $c["ref_gbps"] "," $c["ref_ratio"] }' "$1"
}

check "one run: merged" 0 "3 transfer rows have a reference figure" \
  "$REF" --csv="$T/rows.csv" --out="$T/one.csv" --run="$T/nvb/nvbandwidth" --json="$T/one.json"
check "one run: the planned testcases, the buffer in MiB" 0 "^-j -b 512 -t $tcs$" cat "$T/nvb/tool_args"
check "one run: its output kept" 0 '"nvbandwidth"' cat "$T/one.json"
check "one run: the figures in the rows" 0 "ce/push=375,0.9867" refs "$T/one.csv"
check "one run: no temporary file" 1 "" bash -c "ls $T | grep -q tmp"

rm -f "$T/nvb/tool_args"
check "--repeats=2: two runs, their median merged" 0 "3 transfer rows have a reference figure" \
  "$REF" --csv="$T/rows.csv" --out="$T/two.csv" --run="$T/nvb/nvbandwidth" --json="$T/two.json" --repeats=2
check "--repeats=2: the tool ran twice" 0 "^2$" bash -c "wc -l < $T/nvb/tool_args"
check "--repeats=2: one output file per run" 0 "two_r1.json two_r2.json" bash -c "cd $T && echo two_r*.json"
check "--repeats=2: no file under the plain name" 1 "" test -e "$T/two.json"

cp "$T/rows.csv" "$T/before.csv"
check "a failing tool: exit 1, its status named" 1 "exited 3" \
  env STUB_NVB_FAIL=1 "$REF" --csv="$T/rows.csv" --run="$T/nvb/nvbandwidth" --json="$T/bad.json"
check "a failing tool: no output file, no temporary one" 1 "" bash -c "ls $T | grep -q bad"
check "a failing tool: the CSV as it was" 0 "" cmp "$T/rows.csv" "$T/before.csv"
check "a tool that does not exist: refused first" 2 "--run=.*no-such-tool: not an executable file" \
  "$REF" --csv="$T/rows.csv" --run="$T/nvb/no-such-tool" --json="$T/none.json"
check "a tool that does not exist: no output file, no temporary one" 1 "" bash -c "ls $T | grep -q none"
printf 'not a program\n' > "$T/nvb/not-executable"
check "a file that is not executable: refused first" 2 "not an executable file" \
  "$REF" --csv="$T/rows.csv" --run="$T/nvb/not-executable" --json="$T/none.json"

awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sweep") s = i; print; next } $s == "fig2"' "$T/rows.csv" > "$T/fig2.csv"
rm -f "$T/nvb/tool_args"
check "no counterpart: nothing run, exit 0" 0 "no row of .*fig2.csv has an nvbandwidth counterpart: the tool not run" \
  "$REF" --csv="$T/fig2.csv" --run="$T/nvb/nvbandwidth" --json="$T/fig2.json"
check "no counterpart: the tool not called" 1 "" test -e "$T/nvb/tool_args"

for bad in "--plan --run=x --json=j.json|--run: not with --plan or --nvbandwidth" \
           "--run=x --nvbandwidth=f.json --json=j.json|--run: not with --plan or --nvbandwidth" \
           "--json=j.json --nvbandwidth=f.json|--json: only with --run" \
           "--repeats=3 --nvbandwidth=f.json|--repeats: only with --run" \
           "--repeats=1 --plan|--repeats: only with --run" \
           "--run=x|--json: missing" \
           "--run=x --json=j.json --repeats=0|--repeats=0: 1 to 100" \
           "--run=x --json=/nonexistent/dir/j.json|--json=/nonexistent/dir/j.json: folder"; do
  # shellcheck disable=SC2086  # the flags are words
  check "refused first: ${bad%%|*}" 2 "${bad#*|}" "$REF" --csv="$T/rows.csv" ${bad%%|*}
done

# scripts/run.sh transfer on two stand-in GPUs, the real pkbench_transfer_ref after its main run.
cat > "$T/path/nvidia-smi" <<'SMI'
#!/usr/bin/env bash
case "$*" in
  *-L*) echo "GPU 0: NVIDIA H100 (UUID: GPU-0)"; echo "GPU 1: NVIDIA H100 (UUID: GPU-1)" ;;
  *--query-gpu=name*) echo "NVIDIA H100"; echo "NVIDIA H100" ;;
esac
SMI
printf '#!/usr/bin/env bash\nexit 0\n' > "$T/path/cmake"
printf '#!/usr/bin/env bash\nexit 0\n' > "$T/other"
chmod +x "$T/path/nvidia-smi" "$T/path/cmake" "$T/other"
touch "$T/build/CMakeCache.txt"
ln -s "$T/study" "$T/build/bin/pkbench_transfer"
ln -s "$REF" "$T/build/bin/pkbench_transfer_ref"
for t in merge transfer_summary peer_modes tune tune_loo report; do ln -s "$T/other" "$T/build/bin/pkbench_$t"; done
run_sh() {  # NAME [ENV=VALUE...]: scripts/run.sh transfer into $T/NAME
  local name=$1
  shift
  env "$@" PATH="$T/path:$PATH" PKBENCH_BUILD_DIR="$T/build" PKBENCH_NO_INSTALL=1 PKBENCH_DEPS_DRY_RUN=1 \
    PKBENCH_NVBANDWIDTH="$T/nvb/nvbandwidth" PKBENCH_OUT="$T/$name" "$src/scripts/run.sh" transfer > "$T/$name.log" 2>&1
}
run_sh ok
o=$T/ok/transfer
check "run.sh: the rows merged with the tool's figures" 0 "ce/push=375,0.9867" refs "$o/transfer.csv"
check "run.sh: the tool's output beside the CSV" 0 '"nvbandwidth"' cat "$o/nvbandwidth.json"
check "run.sh: command.txt names the one command" 0 \
  "^build/bin/pkbench_transfer_ref --csv=.*/ok/transfer/transfer.csv --buffer=512M --run=.*/nvbandwidth --json=.*/ok/transfer/nvbandwidth.json$" \
  cat "$o/command.txt"
check "run.sh: and the merge from the kept output" 0 "pkbench_transfer_ref --csv=.* --buffer=512M --nvbandwidth=.*/ok/transfer/nvbandwidth.json$" \
  cat "$o/command.txt"
check "run.sh: the ratios in the study's log" 0 "3 transfer rows have a reference figure" cat "$o/transfer.log"
run_sh failed STUB_NVB_FAIL=1
o=$T/failed/transfer
check "run.sh, a failing tool: says so" 0 "nvbandwidth or the merge failed" cat "$T/failed.log"
check "run.sh, a failing tool: the rows without a reference" 0 "ce/push=,$" refs "$o/transfer.csv"
check "run.sh, a failing tool: no output file" 1 "" test -e "$o/nvbandwidth.json"
check "run.sh, a failing tool: command.txt names no reference run" 1 "" grep -q pkbench_transfer_ref "$o/command.txt"
check "run.sh, a failing tool: its error in the study's log" 0 "CUDA error" cat "$o/transfer.log"
exit $((fails > 0))
