#!/usr/bin/env bash
# sanitize_summary.sh SOURCE_DIR: scripts/sanitize.sh's summary, with a stand-in compute-sanitizer,
# nvidia-smi and GPU test binaries (no GPU needed): each row's errors are the tool's total (not
# the count it left unprinted past --print-limit; racecheck's singular "(1 error"), a run without
# a summary line counts -1, the exit is 0 only when every run is clean, bad flags exit 2, and
# --resume goes on from a run cut off by its time bound.
src=$1
# shellcheck source=/dev/null
source "$(dirname "$0")/check_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/path" "$work/build/bin"
cat > "$work/path/nvidia-smi" <<'SH'
#!/usr/bin/env bash
case "$*" in *--query-gpu=name*) echo "NVIDIA H100 80GB HBM3" ;; *) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)" ;; esac
SH
# What each tool prints is chosen per binary by $FAKE_SAN_<tool>_<binary>: clean, many, race1, nvjet or none.
cat > "$work/path/compute-sanitizer" <<'SH'
#!/usr/bin/env bash
tool= bin=
[ -z "${FAKE_SAN_ARGS:-}" ] || echo "$*" >> "$FAKE_SAN_ARGS"
# The test process FAKE_CUT names is cut off by the time bound (timeout's exit 124).
[ -n "${FAKE_CUT:-}" ] && [[ " $* " == *" --gtest_filter=$FAKE_CUT "* ]] && exit 124
# FAKE_SNAPSHOT: what summary.csv ($FAKE_SUMMARY) holds while a test process runs.
[ -z "${FAKE_SNAPSHOT:-}" ] || cp "$FAKE_SUMMARY" "$FAKE_SNAPSHOT"
while [ $# -gt 0 ]; do
  case "$1" in --tool) tool=$2; shift ;; */pkbench_*) bin=${1##*/} ;; esac
  shift
done
var=FAKE_SAN_${tool}_${bin}
case "${!var:-clean}" in
  clean) echo "========= ERROR SUMMARY: 0 errors" ;;
  many) printf '%s\n' "========= ERROR SUMMARY: 1048576 errors" \
    "========= ERROR SUMMARY: 1048526 errors were not printed. Use --print-limit option to adjust the number of printed errors" ;;
  race1) echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; exit 1 ;;
  none) echo "========= Internal Sanitizer Error"; exit 1 ;;
  nvjet) for k in nvjet_sm90_tst our_kernel; do
      printf '%s\n' "========= Error: Potential WAR hazard detected at __shared__ 0x10 in block (1,0,0) :" \
        "=========     Read Thread (31,0,0) at ${k}+0xa50" "=========     Write Thread (256,0,0) at ${k}+0x48" "========= "
    done
    printf '%s\n' "========= Warning: Potential RAW hazard detected at __shared__ 0x20 in block (0,0,0) :" \
      "=========     Write Thread (0,0,0) at nvjet_sm90_tst+0x10" "=========     Read Thread (1,0,0) at nvjet_sm90_tst+0x20" "========= "
    echo "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warnings)"; exit 0 ;;
esac
SH
for b in pkbench_a_gpu_tests pkbench_b_gpu_tests; do
  printf '#!/usr/bin/env bash\n[ -n "${FAKE_LIST_EMPTY:-}" ] || printf "Suite.\\n  Virtual\\n  Virtual2\\n"\n' > "$work/build/bin/$b"
done
chmod +x "$work/path/"* "$work/build/bin/"*
run() { env PATH="$work/path:$PATH" PKBENCH_BUILD_DIR="$work/build" "$@"; }
san=$src/scripts/sanitize.sh

check clean 0 "memcheck +pkbench_a_gpu_tests .* 0 +0" run bash "$san" --tools=memcheck,initcheck "$work/o1"
check many_counts_the_total 1 "initcheck +pkbench_b_gpu_tests .* 1048576 +0" \
  run env FAKE_SAN_initcheck_pkbench_b_gpu_tests=many bash "$san" --tools=initcheck "$work/o2"
check race_one_error 1 "racecheck +pkbench_a_gpu_tests .* 2 +1" \
  run env FAKE_SAN_racecheck_pkbench_a_gpu_tests=race1 bash "$san" --tools=racecheck --binaries=pkbench_a_gpu_tests "$work/o3"
# racecheck instruments every kernel (no --kernel-name-exclude), prints every hazard and runs one
# test case a process; the reports inside cuBLASLt's nvjet kernels leave the log and the errors
# column, ours stay (one in each of the binary's two test processes).
check racecheck_nvjet_left_out 1 "racecheck +pkbench_a_gpu_tests .* 2 +0" \
  run env FAKE_SAN_ARGS="$work/args" FAKE_SAN_racecheck_pkbench_a_gpu_tests=nvjet \
  bash "$san" --tools=racecheck --binaries=pkbench_a_gpu_tests "$work/o6"
grep -q -- "--kernel-name-exclude" "$work/args" &&
  { echo "FAIL racecheck_nvjet_left_out: a kernel left out of racecheck: $(cat "$work/args")"; fails=$((fails + 1)); }
grep -q -- "--tool racecheck .*--gtest_filter=Suite.Virtual$" "$work/args" ||
  { echo "FAIL racecheck_nvjet_left_out: racecheck not run one test case a process: $(cat "$work/args")"; fails=$((fails + 1)); }
grep -q -- "--tool racecheck .*--print-limit 0 " "$work/args" ||
  { echo "FAIL racecheck_nvjet_left_out: racecheck does not print every hazard: $(cat "$work/args")"; fails=$((fails + 1)); }
rlog=$work/o6/racecheck.pkbench_a_gpu_tests.log
grep -q "at nvjet" "$rlog" && { echo "FAIL racecheck_nvjet_left_out: cuBLASLt's hazard kept in the log"; fails=$((fails + 1)); }
grep -q "at our_kernel" "$rlog" || { echo "FAIL racecheck_nvjet_left_out: our hazard left out of the log"; fails=$((fails + 1)); }
grep -q "2 hazard reports inside cuBLASLt's nvjet kernels (1 errors) left out" "$rlog" ||
  { echo "FAIL racecheck_nvjet_left_out: no line saying what was left out"; fails=$((fails + 1)); }
# A binary that lists no test case under racecheck is an error row, not a clean one.
check racecheck_no_test_case 1 "racecheck +pkbench_a_gpu_tests .* -1 +1" \
  run env FAKE_LIST_EMPTY=1 bash "$san" --tools=racecheck --binaries=pkbench_a_gpu_tests "$work/o7"
check no_summary 1 "synccheck +pkbench_a_gpu_tests .* -1 +1" \
  run env FAKE_SAN_synccheck_pkbench_a_gpu_tests=none bash "$san" --tools=synccheck "$work/o4"
# --resume: a job cut off by its time limit goes on. Memcheck's rows first; then racecheck of one
# binary, its second test process cut off (exit 124, the row unfinished); then --resume runs only
# that process, keeps the first's errors and log, and keeps the rows of what it did not plan.
r=$work/o8
run bash "$san" --tools=memcheck "$r" > /dev/null 2>&1
check resume_cut_off 1 "racecheck +pkbench_a_gpu_tests .* -1 +124" \
  run env FAKE_CUT=Suite.Virtual2 bash "$san" --resume --tools=racecheck --binaries=pkbench_a_gpu_tests "$r"
check resume_goes_on 0 "racecheck +pkbench_a_gpu_tests .* 0 +0" \
  run env FAKE_SAN_ARGS="$work/args8" bash "$san" --resume --tools=racecheck --binaries=pkbench_a_gpu_tests "$r"
[ "$(grep -c -- "--tool racecheck" "$work/args8")" = 1 ] && grep -q -- "--gtest_filter=Suite.Virtual2$" "$work/args8" ||
  { echo "FAIL resume_goes_on: not only the cut-off process ran again: $(cat "$work/args8")"; fails=$((fails + 1)); }
grep -q "Suite.Virtual: finished in an earlier run (errors 0, exit 0), not run again" "$r/racecheck.pkbench_a_gpu_tests.log" ||
  { echo "FAIL resume_goes_on: the log does not say what was kept"; fails=$((fails + 1)); }
[ "$(grep -c '^memcheck,' "$r/summary.csv")" = 2 ] ||
  { echo "FAIL resume_goes_on: memcheck's rows not kept: $(cat "$r/summary.csv")"; fails=$((fails + 1)); }
ls -A "$r" | grep -q '^\.done' && { echo "FAIL resume_goes_on: a finished run left its progress file"; fails=$((fails + 1)); }
: > "$work/args9"
check resume_skips_finished 0 "synccheck +pkbench_a_gpu_tests" \
  run env FAKE_SAN_ARGS="$work/args9" bash "$san" --resume --binaries=pkbench_a_gpu_tests "$r"
grep -Eq -- "--tool (memcheck|racecheck)" "$work/args9" &&
  { echo "FAIL resume_skips_finished: a finished tool ran again: $(cat "$work/args9")"; fails=$((fails + 1)); }
# A failed test process, then one cut off: the pair is unfinished (exit 124), and --resume runs the
# cut-off one only.
r=$work/o9
check resume_failed_then_cut 1 "racecheck +pkbench_a_gpu_tests .* -1 +124" \
  run env FAKE_CUT=Suite.Virtual2 FAKE_SAN_racecheck_pkbench_a_gpu_tests=race1 \
  bash "$san" --tools=racecheck --binaries=pkbench_a_gpu_tests "$r"
check resume_after_failure 1 "racecheck +pkbench_a_gpu_tests .* 2 +1" \
  run env FAKE_SAN_ARGS="$work/args10" FAKE_SAN_racecheck_pkbench_a_gpu_tests=race1 \
  bash "$san" --resume --tools=racecheck --binaries=pkbench_a_gpu_tests "$r"
grep -q -- "--gtest_filter=Suite.Virtual$" "$work/args10" &&
  { echo "FAIL resume_after_failure: the finished process ran again"; fails=$((fails + 1)); }
# Without --resume an earlier summary is not this run's: while the first test process runs,
# summary.csv holds the header alone.
run env FAKE_SUMMARY="$r/summary.csv" FAKE_SNAPSHOT="$work/snap" bash "$san" --tools=memcheck --binaries=pkbench_a_gpu_tests "$r" > /dev/null 2>&1
[ "$(wc -l < "$work/snap")" = 1 ] || { echo "FAIL fresh_summary: an earlier run's rows stood while this one ran: $(cat "$work/snap")"; fails=$((fails + 1)); }
[ "$(wc -l < "$work/o2/summary.csv")" = 3 ] || { echo "FAIL summary.csv: header and one row a binary expected"; fails=$((fails + 1)); }
check bad_tool 2 "--tools: unknown tool 'rc'" run bash "$san" --tools=rc "$work/o5"
check bad_binary 2 "--binaries: 'gemm' is not a GPU test binary" run bash "$san" --binaries=gemm "$work/o5"
check bad_jobs 2 "--jobs=0: 1 to 99" run bash "$san" --jobs=0 "$work/o5"
[ -e "$work/o5" ] && { echo "FAIL a refusal wrote $work/o5"; fails=$((fails + 1)); }
exit $((fails > 0))
