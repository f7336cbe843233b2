#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every GPU test binary's
# virtual-rank instances (N ranks on one GPU, so every multi-rank kernel is reached on one
# GPU), one log per tool and binary, and a summary table of the errors each reported.
#   scripts/sanitize.sh [--ranks=N] [--tools=memcheck,racecheck,...] [OUT_DIR]
# OUT_DIR defaults to results/<machine>/tests/sanitizer. Needs a GPU, a build (scripts/test.sh builds)
# and compute-sanitizer on PATH (or in $CUDA_HOME/bin). Exit 0 when every tool reported 0
# errors, 1 otherwise, 2 for bad arguments, 3 without a GPU or compute-sanitizer.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
ranks=2 tools=(memcheck racecheck synccheck initcheck) out=""
for a in "$@"; do
  case "$a" in
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --ranks=*) ranks=${a#--ranks=}
      [[ "$ranks" =~ ^[2-8]$ ]] || { echo "sanitize.sh: error: --ranks=$ranks: 2 to 8" >&2; exit 2; } ;;
    --tools=*) IFS=, read -r -a tools <<< "${a#--tools=}"
      for t in "${tools[@]}"; do
        case "$t" in memcheck|racecheck|synccheck|initcheck) ;;
          *) echo "sanitize.sh: error: --tools: unknown tool '$t' (memcheck, racecheck, synccheck, initcheck)" >&2; exit 2 ;;
        esac
      done ;;
    -*) echo "sanitize.sh: error: unknown flag $a" >&2; exit 2 ;;
    *) out=$a ;;
  esac
done
san=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[ -x "$san" ] || { echo "sanitize.sh: compute-sanitizer not found (PATH or \$CUDA_HOME/bin)" >&2; exit 3; }
[ "$(pk_gpu_count)" -ge 1 ] || { echo "sanitize.sh: no NVIDIA GPU here" >&2; exit 3; }
out=${out:-$PKBENCH_ROOT/results/$(pk_machine_name)/tests/sanitizer}
mkdir -p "$out"
export PKBENCH_VIRTUAL_RANKS=$ranks CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
summary="tool,binary,ranks,errors,tests_exit_code,seconds"
status=0
for t in "${tools[@]}"; do
  for b in "$(pk_bin_dir)"/pkbench_*_gpu_tests "$(pk_bin gpu_tests)"; do
    [ -x "$b" ] || continue
    case "$b" in *_mpi_tests) continue ;; esac
    name=$(basename "$b")
    log=$out/$t.$name.log
    # Binaries without virtual-rank tests (the GEMM's, the one-process primitives') are left out.
    if ! "$b" --gtest_list_tests --gtest_filter='*virtual*:*Virtual*' 2>/dev/null | grep -q '^  '; then
      pk_log "$t: $name has no virtual-rank tests: not run"
      continue
    fi
    extra=()
    [ "$t" = racecheck ] && extra=(--racecheck-report hazard)
    pk_log "$t: $name (virtual ranks: $ranks)"
    t0=$(date +%s)
    # Bounded: a sanitizer slows kernels many times over; $PKBENCH_SANITIZE_TIMEOUT s per run.
    timeout "${PKBENCH_SANITIZE_TIMEOUT:-600}" "$san" --tool "$t" "${extra[@]}" --print-limit 50 "$b" \
      --gtest_filter='*virtual*:*Virtual*' > "$log" 2>&1
    rc=$?
    # memcheck/synccheck/initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: ... (N errors, ...)".
    errors=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
    [ -n "$errors" ] || { errors=-1; status=1; }  # no summary: the tool itself failed
    [ "$errors" -gt 0 ] && status=1
    summary="$summary
$t,$name,$ranks,$errors,$rc,$(( $(date +%s) - t0 ))"
    # Written after every run: a sweep stopped early still leaves what it finished.
    printf '%s\n' "$summary" > "$out/summary.csv.tmp" && mv "$out/summary.csv.tmp" "$out/summary.csv"
  done
done
column -s, -t < "$out/summary.csv" 2>/dev/null || cat "$out/summary.csv"
exit $status
