#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every GPU test binary,
# one log per tool and binary, and a summary table of the errors each reported. A binary with
# virtual-rank tests runs those (N ranks on one GPU, so every multi-rank kernel is reached on one
# GPU); one without (the GEMM's, the one-process primitives') runs its whole suite. racecheck runs
# each test case in a process of its own (its host memory grows with every kernel a process runs).
#   scripts/sanitize.sh [--ranks=N] [--tools=memcheck,...] [--binaries=NAME,...] [--jobs=N] [--resume] [OUT_DIR]
# --binaries names test binaries of the build (pkbench_ep_gpu_tests, ...; default: every one).
# --jobs runs that many tool x binary runs at once on the GPU (default 1).
# --resume goes on from an earlier run into OUT_DIR (a job stopped by its time limit): every test
# process that finished there at the same --ranks is not run again (its errors counted, its log
# kept), and the rows of tools and binaries not named this time stay in summary.csv (its columns
# up to `seconds`); the exit status covers every row of summary.csv.
# OUT_DIR defaults to results/<machine>/tests/sanitizer. Needs a GPU, a build (scripts/test.sh builds)
# and compute-sanitizer on PATH (or in $CUDA_HOME/bin). Every kernel deadline is stretched by the
# tool's slowdown ($PKBENCH_DEADLINE_SCALE) and each tool x binary run is bounded by $PKBENCH_SANITIZE_TIMEOUT
# seconds (default 900). Exit 0 when every tool reported 0 errors and every run passed, 1
# otherwise, 2 for bad arguments, 3 without a GPU or compute-sanitizer.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
ranks=2 jobs=1 resume=0 tools=(memcheck racecheck synccheck initcheck) out_dir="" binaries=()
for a in "$@"; do
  case "$a" in
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --ranks=*) ranks=${a#--ranks=}
      [[ "$ranks" =~ ^[2-8]$ ]] || { echo "sanitize.sh: error: --ranks=$ranks: 2 to 8" >&2; exit 2; } ;;
    --jobs=*) jobs=${a#--jobs=}
      [[ "$jobs" =~ ^[1-9][0-9]?$ ]] || { echo "sanitize.sh: error: --jobs=$jobs: 1 to 99" >&2; exit 2; } ;;
    --tools=*) IFS=, read -r -a tools <<< "${a#--tools=}"
      for t in "${tools[@]}"; do
        case "$t" in memcheck|racecheck|synccheck|initcheck) ;;
          *) echo "sanitize.sh: error: --tools: unknown tool '$t' (memcheck, racecheck, synccheck, initcheck)" >&2; exit 2 ;;
        esac
      done ;;
    --binaries=*) IFS=, read -r -a binaries <<< "${a#--binaries=}"
      for b in "${binaries[@]}"; do
        [[ "$b" =~ ^pkbench_[a-z0-9_]*gpu_tests$ ]] ||
          { echo "sanitize.sh: error: --binaries: '$b' is not a GPU test binary's name (pkbench_..._gpu_tests)" >&2; exit 2; }
      done ;;
    --resume) resume=1 ;;
    -*) echo "sanitize.sh: error: unknown flag $a" >&2; exit 2 ;;
    *) out_dir=$a ;;
  esac
done
san=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[ -x "$san" ] || { echo "sanitize.sh: compute-sanitizer not found (PATH or \$CUDA_HOME/bin)" >&2; exit 3; }
[ "$(pk_gpu_count)" -ge 1 ] || { echo "sanitize.sh: no NVIDIA GPU here" >&2; exit 3; }
out_dir=${out_dir:-$PKBENCH_ROOT/results/$(pk_machine_name)/tests/sanitizer}
mkdir -p "$out_dir"
export PKBENCH_VIRTUAL_RANKS=$ranks CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
summary="tool,binary,filter,ranks,deadline_scale,errors,tests_exit_code,seconds"
# How many times over each tool stretches a kernel's spin-wait deadlines: racecheck instruments
# every shared-memory access and is the slowest.
deadline_scale() { case "$1" in racecheck) echo 100 ;; *) echo 20 ;; esac; }
if [ ${#binaries[@]} = 0 ]; then
  bins=("$(pk_bin_dir)"/pkbench_*_gpu_tests "$(pk_bin gpu_tests)")
else
  bins=()
  for b in "${binaries[@]}"; do
    [ -x "$(pk_bin_dir)/$b" ] || { echo "sanitize.sh: error: --binaries: $(pk_bin_dir)/$b is not built" >&2; exit 2; }
    bins+=("$(pk_bin_dir)/$b")
  done
fi
# Removes from racecheck's log LOG every hazard report inside a cuBLASLt kernel (an access "at
# nvjet..."), adds a line saying how many, and prints how many of them were errors (the
# summary line's count includes them).
drop_cublaslt_hazards() {
  local log=$1
  awk -v counts="$log.counts" '
    function flush() {
      if (nb) { if (blk ~ /Thread \([0-9,]*\) at nvjet/) { drop++; if (blk ~ /^========= Error:/) errs++ } else printf "%s", blk }
      blk = ""; nb = 0
    }
    /^========= (Error|Warning): Potential .* hazard/ { flush(); nb = 1 }
    nb { blk = blk $0 "\n"; if ($0 ~ /^========= *$/) flush(); next }
    { print }
    END { flush(); print drop + 0, errs + 0 > counts }
  ' "$log" > "$log.kept" || return 1
  local drop errs
  read -r drop errs < "$log.counts"
  [ "$drop" = 0 ] || echo "sanitize.sh: $drop hazard reports inside cuBLASLt's nvjet kernels ($errs errors) left out of this log and of the errors column" >> "$log.kept"
  mv "$log.kept" "$log" && rm -f "$log.counts"
  echo "$errs"
}
# The test cases of binary B that gtest FILTER selects, one full name a line.
list_tests() {
  "$1" --gtest_list_tests --gtest_filter="$2" 2>/dev/null |
    awk '/^[^ ]/ {suite = $1; next} /^  / {print suite $1}'
}
# The errors one tool run reported in LOG (racecheck's inside cuBLASLt's kernels left out); -1
# when it printed no summary (the tool itself failed).
tool_errors() {
  local t=$1 log=$2 left=0 errors
  [ "$t" = racecheck ] && left=$(drop_cublaslt_hazards "$log")
  # memcheck/synccheck/initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: ... (N errors, ...)",
  # singular for one ("(1 error, 0 warnings)").
  errors=$(sed -n -e '/were not printed/d' -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
  if [ -z "$errors" ]; then echo -1; else echo $((errors - ${left:-0})); fi
}
# write_row IDX FIELDS: a run's summary row, in $rows/<IDX>.row (read back in plan order).
write_row() {
  echo "$2" > "$rows/$1.row.tmp" && mv "$rows/$1.row.tmp" "$rows/$1.row"
}
# One run: its log, then its summary row (write_row).
run_one() {
  local idx=$1 t=$2 b=$3 name filter log extra=() scale t0 rc errors limit tests=() one e r s end left secs done_file prev cut=0
  name=$(basename "$b")
  log=$out_dir/$t.$name.log
  filter='*virtual*:*Virtual*'
  [ -n "$(list_tests "$b" "$filter")" ] || filter='*'
  # racecheck instruments every kernel and prints every hazard (--print-limit 0), so that those
  # inside cuBLASLt's kernels (nvjet_*: the GEMM baseline and the references; racecheck does not
  # model their TMA and mbarrier pipelining and reports thousands of WAR hazards there) can be
  # told from ours afterwards (drop_cublaslt_hazards). Leaving them out with
  # --kernel-name-exclude instead makes compute-sanitizer 2025.3 stop at our GEMM's first launch
  # ("failed to handle a hardware exception"). And it runs each test case in its own process: its
  # host memory grows with every kernel a process runs and is not given back between tests (about
  # 8 GB per GEMM test; the whole GEMM binary in one process passed the 128 GiB of an H100 machine).
  # Both measured: results/h100x1/tests/sanitizer/command.txt, run 6.
  limit=50
  tests=("$filter")
  if [ "$t" = racecheck ]; then
    extra=(--racecheck-report hazard)
    limit=0
    mapfile -t tests < <(list_tests "$b" "$filter")
  fi
  scale=$(deadline_scale "$t")
  if [ ${#tests[@]} = 0 ]; then  # nothing checked is not a clean run
    echo "sanitize.sh: $name listed no test case for --gtest_filter=$filter" > "$log"
    write_row "$idx" "$t,$name,$filter,$ranks,$scale,-1,1,0"
    return
  fi
  pk_log "$t: $name started (filter $filter, ${#tests[@]} process(es), virtual ranks: $ranks, deadlines x$scale)"
  t0=$(date +%s)
  # Bounded: a sanitizer slows kernels many times over; $PKBENCH_SANITIZE_TIMEOUT s for the binary.
  end=$((t0 + ${PKBENCH_SANITIZE_TIMEOUT:-900}))
  errors=0 rc=0 secs=0
  # Each finished test process, one line "FILTER<tab>ERRORS<tab>EXIT<tab>SECONDS": what --resume
  # keeps (write_summary removes the file once the pair's finished row is in summary.csv).
  done_file=$(progress_file "$t" "$name")
  if [ "$resume" = 0 ] || [ ! -f "$done_file" ]; then : > "$log"; : > "$done_file"; fi
  for one in "${tests[@]}"; do
    if prev=$(awk -F'\t' -v c="$one" '$1 == c {print $2, $3, $4; found = 1} END {exit !found}' "$done_file"); then
      read -r e r s <<< "$prev"
      echo "sanitize.sh: $one: finished in an earlier run (errors $e, exit $r), not run again" >> "$log"
    else
      left=$((end - $(date +%s)))
      if [ "$left" -le 0 ]; then cut=1; echo "sanitize.sh: out of time before $one" >> "$log"; break; fi
      s=$(date +%s)
      PKBENCH_DEADLINE_SCALE=$scale timeout "$left" "$san" --tool "$t" "${extra[@]}" \
        --print-limit "$limit" "$b" --gtest_filter="$one" > "$log.tmp.one" 2>&1
      r=$?
      s=$(( $(date +%s) - s ))
      e=$(tool_errors "$t" "$log.tmp.one")
      cat "$log.tmp.one" >> "$log"
      # Cut off by the time bound (timeout's 124): not finished, run again by --resume. Any other
      # end (a failure, or a kill such as the OOM killer's 137) is this process's result.
      if [ "$r" = 124 ]; then cut=1; else printf '%s\t%s\t%s\t%s\n' "$one" "$e" "$r" "$s" >> "$done_file"; fi
    fi
    [ "$r" = 0 ] || [ "$rc" != 0 ] || rc=$r
    if [ "$e" -lt 0 ] || [ "$errors" -lt 0 ]; then errors=-1; else errors=$((errors + e)); fi
    secs=$((secs + s))
  done
  rm -f "$log.tmp.one"
  [ "$cut" = 0 ] || rc=124  # a test process cut off: the pair is not finished, whatever failed before
  pk_log "$t: $name finished: $errors errors, exit $rc, $secs s"
  write_row "$idx" "$t,$name,$filter,$ranks,$scale,$errors,$rc,$secs"
}
# Where run_one records a tool x binary pair's finished test processes (at this --ranks).
progress_file() { echo "$out_dir/.done.$1.$2.r$ranks"; }
# Written before the first run and after every run: a sweep stopped early still leaves what it
# finished, in plan order, after the rows --resume kept; then a finished pair's progress file goes.
write_summary() {
  local i t name rc
  # (if, not &&: a row not written yet must not fail the group and keep the summary from its file)
  { echo "$summary"; cat "$rows/kept"; for ((i = 0; i < n; i++)); do if [ -f "$rows/$i.row" ]; then cat "$rows/$i.row"; fi; done; } \
    > "$out_dir/summary.csv.tmp.$$" && mv "$out_dir/summary.csv.tmp.$$" "$out_dir/summary.csv" || return
  for ((i = 0; i < n; i++)); do
    [ -f "$rows/$i.row" ] || continue
    IFS=, read -r t name _ _ _ _ rc _ < "$rows/$i.row"
    [ "$rc" = 124 ] || rm -f "$(progress_file "$t" "$name")"
  done
}
rows=$(mktemp -d "$out_dir/.rows.XXXXXX")
trap 'rm -rf "$rows"' EXIT
: > "$rows/kept"
plan=()
for t in "${tools[@]}"; do
  for b in "${bins[@]}"; do
    [ -x "$b" ] || continue
    case "$b" in *_mpi_tests) continue ;; esac
    plan+=("$t $b")
  done
done
n=${#plan[@]}
# --resume: the earlier summary's rows are kept (its columns up to `seconds`) but those of planned
# tool x binary pairs it did not finish at this --ranks (exit 124: out of time; or no row), which
# run again, going on from their finished test processes.
if [ "$resume" = 1 ] && [ -f "$out_dir/summary.csv" ]; then
  awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 }' "$out_dir/summary.csv" > "$rows/earlier"
  again=()
  for p in "${plan[@]}"; do
    read -r t b <<< "$p"
    awk -F, -v t="$t" -v b="$(basename "$b")" -v r="$ranks" '$1 == t && $2 == b && $4 == r && $7 != 124 {f = 1} END {exit !f}' \
      "$rows/earlier" || again+=("$p")
  done
  awk -F, -v again="$(printf '%s\n' ${again[@]+"${again[@]}"} | awk '{n = split($2, x, "/"); print $1 "," x[n]}')" '
    BEGIN { n = split(again, a, "\n"); for (i = 1; i <= n; i++) skip[a[i]] = 1 }
    !(($1 "," $2) in skip)' "$rows/earlier" > "$rows/kept"
  plan=(${again[@]+"${again[@]}"})
  n=${#plan[@]}
fi
write_summary  # without --resume, an earlier run's rows are not this run's
for ((i = 0; i < n; i++)); do
  # At most --jobs runs at once: each is its own process and CUDA context on the one GPU.
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; write_summary; done
  read -r t b <<< "${plan[$i]}"
  run_one "$i" "$t" "$b" &
done
while [ -n "$(jobs -rp)" ]; do wait -n; write_summary; done
write_summary
# Clean: every run printed its summary with 0 errors and its tests passed (a failed or
# timed-out run is not a clean run).
status=0
for ((i = 0; i < n; i++)); do
  [ -f "$rows/$i.row" ] || status=1
done
while IFS=, read -r _ _ _ _ _ errors rc _; do
  [ "$errors" = 0 ] && [ "$rc" = 0 ] || status=1
done < <(tail -n +2 "$out_dir/summary.csv")
column -s, -t < "$out_dir/summary.csv" 2>/dev/null || cat "$out_dir/summary.csv"
exit $status
