#!/usr/bin/env bash
# One call on a lent GPU machine (the device tool's `run`, carry [".deps"]): build, run the GPU
# tests, run the studies through scripts/run.sh into the results layout, and pack everything
# into $OUT: results.tgz (the layout: <machine>/<study>/...), device.log (the steps), tests.log,
# run.log (the tool returns at most 8 files from $OUT).
#   bash scripts/device.sh                        # every study, run.sh's default grids
#   bash scripts/device.sh transfer sync          # those studies
#   bash scripts/device.sh gemm --shapes=8192x8192x8192 --sms=132,100 --samples=8
#   bash scripts/device.sh collectives --peer-mode=ipc --dtypes=bf16 \
#        collectives --peer-mode=ipc --as=collectives_fp32_mpi --dtypes=fp32
#   bash scripts/device.sh --peer-modes [--preset=fig2 --mechanisms=ce_batch]
# A job is a study name and the run.sh flags after it (flag values spelled --flag=value); each
# job is one scripts/run.sh call. --peer-modes runs the transfer study (with the flags given)
# and the cross-GPU sync in each of $PKBENCH_MODES (default: single ipc vmm) into
# transfer/peer-modes/<mode>/, compared side by side (peer_modes.md). The measured folders'
# command.txt files show the jobs that made them. Options: --no-tests, --tests-only, --list (each
# job's plan through run.sh --list: no GPU, no $OUT needed, nothing measured).
# Environment: PKBENCH_OUT (default /tmp/pkbench-results/<machine>), PKBENCH_BUILD_DIR (default
# /tmp/pkbench-build), PKBENCH_TESTS (a ctest -R regex; default every GPU test), PKBENCH_LIMIT
# (seconds for the whole call, default 540: a job that would start later is left out, named).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
t0=$(date +%s)
limit=${PKBENCH_LIMIT:-540}
export PKBENCH_BUILD_DIR=${PKBENCH_BUILD_DIR:-/tmp/pkbench-build} CUDA_MODULE_LOADING=EAGER
# The lent machines reach no network: report what is missing rather than wait on apt.
export PKBENCH_NO_INSTALL=${PKBENCH_NO_INSTALL:-1}
# One node: NCCL's and NVSHMEM's bootstraps over loopback, whatever interfaces the VM has.
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-lo}
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
log() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$OUT/device.log"; }

tests=1 run=1 list=0 peer_modes=0 jobs=() job="" pm_flags=()
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
for a in "$@"; do
  case "$a" in
    -h|--help) usage; exit 0 ;;
    --no-tests) tests=0 ;;
    --tests-only) run=0 ;;
    --list) list=1 ;;
    --peer-modes) peer_modes=1 ;;
    -*)
      if [ "$peer_modes" = 1 ] && [ -z "$job" ]; then pm_flags+=("$a")
      elif [ -n "$job" ]; then job="$job $(printf '%q' "$a")"
      else echo "device.sh: error: '$a' before any study (device.sh STUDY --flag ...)" >&2; exit 2; fi ;;
    *)
      pk_is_study "$a" || { echo "device.sh: error: unknown study '$a' (studies: ${PK_STUDIES[*]})" >&2; exit 2; }
      [ -n "$job" ] && jobs+=("$job")
      job=$a ;;
  esac
done
[ -n "$job" ] && jobs+=("$job")
if [ "$list" = 1 ]; then
  rc=0
  [ ${#jobs[@]} = 0 ] && [ "$peer_modes" = 0 ] && { "$PKBENCH_ROOT/scripts/run.sh" --list || rc=$?; }
  for j in "${jobs[@]}"; do
    eval "args=($j)"
    "$PKBENCH_ROOT/scripts/run.sh" "${args[@]}" --list || rc=$?
  done
  if [ "$peer_modes" = 1 ]; then
    "$PKBENCH_ROOT/scripts/run.sh" transfer "${pm_flags[@]}" --list || rc=$?
    "$PKBENCH_ROOT/scripts/run.sh" sync --levels=cross_gpu --list || rc=$?
  fi
  exit "$rc"
fi
: "${OUT:?device.sh writes to \$OUT, the device tool output folder}"
machine=$(pk_machine_name) || { echo "device.sh: no GPU here" >&2; exit 3; }
export PKBENCH_OUT=${PKBENCH_OUT:-/tmp/pkbench-results/$machine}
mkdir -p "$PKBENCH_OUT"

# The studies this call runs, for the build.
studies=()
if [ ${#jobs[@]} = 0 ] && [ "$peer_modes" = 0 ]; then studies=("${PK_STUDIES[@]}"); fi
for j in "${jobs[@]}"; do studies+=("${j%% *}"); done
[ "$peer_modes" = 1 ] && studies+=(transfer sync)
targets=(pkbench_merge pkbench_transfer_summary pkbench_sync_summary pkbench_tune pkbench_peer_modes pkbench_report)
for s in $(printf '%s\n' "${studies[@]}" | sort -u); do targets+=("pkbench_$s"); done
log "machine $machine, commit $PKBENCH_GIT_COMMIT, results in $PKBENCH_OUT; building"
{
  nvidia-smi
  pk_ensure_deps
  for s in "${PK_NVSHMEM_STUDIES[@]}"; do
    [[ " ${studies[*]} " == *" $s "* ]] && { pk_nvshmem; break; }
  done
  # The GPU tests need every test binary: then the whole build.
  if [ "$tests" = 1 ]; then pk_build; else pk_build "${targets[@]}"; fi
} > "$OUT/build.log" 2>&1
build_rc=$?
log "build rc=$build_rc ($(tail -n 1 "$OUT/build.log"))"
export PKBENCH_BUILD_SECONDS=$(( $(date +%s) - t0 ))

if [ "$tests" = 1 ]; then
  left=$(( limit - ($(date +%s) - t0) ))
  timeout "$(( left > 60 ? left - 30 : 30 ))" ctest --test-dir "$PKBENCH_BUILD_DIR" -L gpu ${PKBENCH_TESTS:+-R "$PKBENCH_TESTS"} \
    --output-on-failure --timeout 240 > "$OUT/tests.log" 2>&1
  log "gpu tests rc=$?: $(grep -E 'tests passed' "$OUT/tests.log")"
fi

# run_job FLAGS...: one scripts/run.sh call, bounded by what is left of the call.
run_job() {
  local left
  left=$(( limit - ($(date +%s) - t0) - 30 ))
  if [ "$left" -lt 20 ]; then log "left out (${left}s left): run.sh $*"; return 0; fi
  log "run.sh $*"
  timeout "$left" "$PKBENCH_ROOT/scripts/run.sh" "$@" >> "$OUT/run.log" 2>&1
  local rc=$?
  log "run.sh ${1:-(every study)}: exit $rc"
}
if [ "$run" = 1 ]; then
  [ ${#jobs[@]} = 0 ] && [ "$peer_modes" = 0 ] && run_job
  for j in "${jobs[@]}"; do
    eval "args=($j)"
    run_job "${args[@]}"
  done
  if [ "$peer_modes" = 1 ]; then
    for m in ${PKBENCH_MODES:-single ipc vmm}; do
      run_job transfer --peer-mode="$m" --as="peer-modes/$m/transfer" "${pm_flags[@]}"
      run_job sync --peer-mode="$m" --levels=cross_gpu --as="../transfer/peer-modes/$m/sync"
    done
    (cd "$PKBENCH_ROOT" && scripts/regenerate.sh "$PKBENCH_OUT") >> "$OUT/run.log" 2>&1
    log "peer modes: $(grep -h 'comparisons within' "$PKBENCH_OUT/transfer/peer-modes/peer_modes.md" 2>/dev/null)"
  fi
fi
tar czf "$OUT/results.tgz" -C "$(dirname "$PKBENCH_OUT")" "$(basename "$PKBENCH_OUT")"
log "done; $OUT/results.tgz holds $(tar tzf "$OUT/results.tgz" | grep -v 'timing\.csv$' | grep -c '\.csv$') study CSVs"
tail -n 3 "$OUT/tests.log" 2>/dev/null
grep -E "exited with|error" "$OUT/run.log" 2>/dev/null | tail -n 10
