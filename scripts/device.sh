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
#   bash scripts/device.sh --check=fused-comm-virtual  # a named check (below), alone or with jobs
# A job is a study name and the run.sh flags after it (flag values spelled --flag=value); each
# job is one scripts/run.sh call. --peer-modes runs the transfer study (with the flags given)
# and the cross-GPU sync in each of $PKBENCH_MODES (default: single ipc vmm) into
# transfer/peer-modes/<mode>/, compared side by side (peer_modes.md). The measured folders'
# command.txt files show the jobs that made them. Options: --no-tests, --tests-only, --list (each
# job's plan through run.sh --list: no GPU, no $OUT needed, nothing measured).
# Checks (--check=NAME, one GPU, virtual ranks; each packs its logs, CSVs and commands into
# $OUT/NAME.tgz; alone they build only their targets, 90a, the GEMM and fused studies, and
# run no other test): fused-comm-virtual: the fused GPU tests with 2, 3, 4 and 8 virtual ranks,
# then the reduction communicator alone (GEMM+RS/AR at K = 64) over the communication SMs with
# 2 and 4 ranks; fused-tuned-virtual: the fused `tuned` schedule end to end (its GPU test, a
# sweep, pkbench_tune --allow-virtual, a run on the table, the summary's Tuned section, the
# table refused by a real machine and by 3 ranks).
# Environment: PKBENCH_OUT (default /tmp/pkbench-results/<machine>), PKBENCH_BUILD_DIR (default
# the tree's build/, as lib.sh sets it; checks alone: build-checks/), PKBENCH_TESTS (a ctest -R regex; default every GPU test), PKBENCH_LIMIT
# (seconds for the whole call, default 540: a job that would start later is left out, named).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
t0=$(date +%s)
limit=${PKBENCH_LIMIT:-540}
export PKBENCH_BUILD_DIR CUDA_MODULE_LOADING=EAGER
# The lent machines reach no network: report what is missing rather than wait on apt.
export PKBENCH_NO_INSTALL=${PKBENCH_NO_INSTALL:-1}
# One node: NCCL's and NVSHMEM's bootstraps over loopback, whatever interfaces the VM has.
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-lo}
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
log() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$OUT/device.log"; }

tests=1 run=1 list=0 peer_modes=0 jobs=() job="" pm_flags=()
usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }
PK_DEVICE_CHECKS=(fused-comm-virtual fused-tuned-virtual)
checks=()
for a in "$@"; do
  case "$a" in
    -h|--help) usage; exit 0 ;;
    --no-tests) tests=0 ;;
    --tests-only) run=0 ;;
    --list) list=1 ;;
    --peer-modes) peer_modes=1 ;;
    --check=*)
      c=${a#--check=}
      [[ " ${PK_DEVICE_CHECKS[*]} " == *" $c "* ]] ||
        { echo "device.sh: error: --check=$c: unknown check (checks: ${PK_DEVICE_CHECKS[*]})" >&2; exit 2; }
      checks+=("$c") ;;
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
  [ ${#jobs[@]} = 0 ] && [ "$peer_modes" = 0 ] && [ ${#checks[@]} = 0 ] && { "$PKBENCH_ROOT/scripts/run.sh" --list || rc=$?; }
  for c in "${checks[@]}"; do echo "== check $c: its own points on one GPU (see --help)"; done
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
if [ ${#jobs[@]} = 0 ] && [ "$peer_modes" = 0 ] && [ ${#checks[@]} = 0 ]; then studies=("${PK_STUDIES[@]}"); fi
for j in "${jobs[@]}"; do studies+=("${j%% *}"); done
[ "$peer_modes" = 1 ] && studies+=(transfer sync)
targets=(pkbench_merge pkbench_transfer_summary pkbench_sync_summary pkbench_tune pkbench_peer_modes pkbench_report)
for s in $(printf '%s\n' "${studies[@]}" | sort -u); do targets+=("pkbench_$s"); done
targets+=($(pk_derive_targets "${studies[@]}"))
if [ ${#checks[@]} -gt 0 ]; then
  targets+=(pkbench_fused pkbench_fused_gpu_tests pkbench_fused_summary)
  # Checks alone: their studies for Hopper only, and no other test.
  if [ ${#studies[@]} = 0 ]; then
    export PKBENCH_CMAKE_ARGS=${PKBENCH_CMAKE_ARGS:--DPKBENCH_CUDA_ARCHS=90a -DPKBENCH_STUDIES=gemm;fused}
    # Its own folder: pk_build applies the arguments only when it configures, and a warm machine
    # keeps build/ for later calls that need every study and architecture.
    export PKBENCH_BUILD_DIR=$PKBENCH_ROOT/build-checks
    tests=0
  fi
fi
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
# The call's exit status: 0 only if the build, the tests, every job and every check exited 0
# (a job left out for lack of time counts as failed).
status=0
[ "$build_rc" = 0 ] || status=1
export PKBENCH_BUILD_SECONDS=$(( $(date +%s) - t0 ))

if [ "$tests" = 1 ]; then
  left=$(( limit - ($(date +%s) - t0) ))
  timeout "$(( left > 60 ? left - 30 : 30 ))" ctest --test-dir "$PKBENCH_BUILD_DIR" -L gpu ${PKBENCH_TESTS:+-R "$PKBENCH_TESTS"} \
    --output-on-failure --timeout 240 > "$OUT/tests.log" 2>&1
  tests_rc=$?
  [ "$tests_rc" = 0 ] || status=1
  log "gpu tests rc=$tests_rc: $(grep -E 'tests passed' "$OUT/tests.log")"
fi

# run_job FLAGS...: one scripts/run.sh call, bounded by what is left of the call.
run_job() {
  local left
  left=$(( limit - ($(date +%s) - t0) - 30 ))
  if [ "$left" -lt 20 ]; then log "left out (${left}s left): run.sh $*"; status=1; return 0; fi
  log "run.sh $*"
  timeout "$left" "$PKBENCH_ROOT/scripts/run.sh" "$@" >> "$OUT/run.log" 2>&1
  local rc=$?
  [ "$rc" = 0 ] || status=1
  log "run.sh ${1:-(every study)}: exit $rc"
}

# ---- Named checks (--check=NAME): each writes into $W and is packed into $OUT/NAME.tgz --------
# fused_virtual_run W NAME FLAGS...: one timed pkbench_fused run with virtual ranks, its command,
# log and CSV kept, and the CSV's GB/s per communication SM printed.
fused_virtual_run() {
  local W=$1 name=$2 F
  shift 2
  F=$(pk_bin fused)
  echo "$F --peer-mode=virtual $* --csv=$name.csv" >"$W/$name.command"
  timeout 120 "$F" --peer-mode=virtual "$@" --csv="$W/$name.csv" >"$W/$name.log" 2>&1
  log "$name: rc=$?"
  [ -f "$W/$name.csv" ] || return 0
  awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}
    {t=$c["time_us_median"]; s=$c["comm_sms"]; b=$c["comm_bytes"];
     printf "%-8s w=%s comm_sms=%-3s %9s us  %7.1f GB/s per SM  %s %s\n", $c["op"], $c["gpus"], s, t,
       (t>0&&s>0)?b/(t*1e3)/s:0, $c["status"], substr($c["error"],1,60)}' "$W/$name.csv" | tee -a "$W/table.txt"
}
# The fused reduction communicator alone on one GPU (its peers are the same HBM, not NVLink): every
# fused kernel verified with 2, 3, 4 and 8 virtual ranks first (a failure stops the check), then
# GEMM+RS / GEMM+AR at K = 64 (the GEMM negligible: the communicator_only rows) over the
# communication SMs (on one H100 the last point of each, 32 of 66 and 16 of 33 SMs, is bound by the
# GEMM on the SMs left and the tail, the same for every communicator variant).
check_fused_comm_virtual() {
  local W=$1 n rc fail=0
  for n in 2 3 4 8; do
    PKBENCH_VIRTUAL_RANKS=$n timeout 75 "$(pk_bin fused_gpu_tests)" '--gtest_filter=*/virtual*:*Virtual*' \
      >"$W/test_virtual_$n.log" 2>&1
    rc=$?
    log "fused GPU tests, $n virtual ranks: rc=$rc $(grep -E 'points verified|PASSED|FAILED' "$W/test_virtual_$n.log" | tr '\n' ' ')"
    [ $rc -eq 0 ] || fail=1
  done
  [ $fail -eq 0 ] || { grep -h -B2 -A8 "Failure\|wrong result" "$W"/test_virtual_*.log | head -60; return 1; }
  # The rows scripts/run.sh's fused study measures for the cost model (lib.sh: pk_fused_comm_only_flags).
  fused_virtual_run "$W" communicator_only_rs_ar_2_ranks --ranks=2 $(pk_fused_comm_only_flags)
  fused_virtual_run "$W" communicator_only_rs_ar_4_ranks --ranks=4 $(pk_fused_comm_only_flags 4,8,16)
  cuobjdump -sass "$(find "$PKBENCH_BUILD_DIR" -name fused_kernel_reduce_inter.cu.o | head -1)" >"$W/reduce_inter.sass" 2>&1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv | tee "$W/nvidia-smi.txt"
}
# The fused `tuned` schedule on one GPU with 2 virtual ranks, end to end: its GPU test; a small
# sweep -> pkbench_tune --allow-virtual -> a run on that table at sizes it measured (2048, 4096),
# between them (3072: interpolated) and outside it (1024: skipped with the reason) -> the
# summary's Tuned section; then the table refused (exit 2, no CSV) by a real machine and by 3 ranks.
check_fused_tuned_virtual() {
  local W=$1 F
  F=$(pk_bin fused)
  local common=(--peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=intra_sm,inter_sm --comm-sms=4,16 --samples=5)
  PKBENCH_VIRTUAL_RANKS=2 timeout 120 "$(pk_bin fused_gpu_tests)" \
    '--gtest_filter=PeerModes/FusedGpu.TunedRunsWhatTheTableAnswers/*' >"$W/test_tuned.log" 2>&1
  log "tuned GPU test (2 virtual ranks): rc=$? $(grep -E '^\[ +(OK|FAILED|SKIPPED) +\]' "$W/test_tuned.log" | tr -s ' ' | tr '\n' ' ')"
  timeout 150 "$F" "${common[@]}" --sizes=2048,4096 --csv="$W/sweep.csv" >"$W/sweep.log" 2>&1
  log "sweep: rc=$? $(grep -c ',ok,' "$W/sweep.csv") ok rows"
  "$(pk_bin tune)" --allow-virtual --out "$W" "$W/sweep.csv" >"$W/tune.log" 2>&1
  log "pkbench_tune --allow-virtual: rc=$? machines $(grep -o '"h[0-9a-z]*x[0-9]*-virtual[0-9]*"' "$W/fused_tuning.json" | sort -u | tr '\n' ' ')"
  timeout 200 "$F" "${common[@]}" --sizes=1024,2048,3072,4096 --tuning-table="$W/fused_tuning.json" --csv="$W/tuned.csv" \
    >"$W/tuned.log" 2>&1
  log "tuned run: rc=$?"
  "$(pk_bin fused_summary)" "$W/tuned.csv" >"$W/summary.md" 2>&1
  log "summary: rc=$?"
  sed -n '/^## Tuned/,$p' "$W/summary.md"
  timeout 60 "$F" --peer-mode=single --ops=gemm_rs --schedules=intra_sm --sizes=2048 --tuning-table="$W/fused_tuning.json" \
    --csv="$W/refused_single.csv" >"$W/refused_single.log" 2>&1
  log "real machine reading the virtual table: rc=$? (2 expected) $(grep -o 'never tuning input for a real machine' "$W/refused_single.log" | head -1)"
  timeout 60 "$F" --peer-mode=virtual --ranks=3 --ops=gemm_rs --schedules=intra_sm --sizes=3072 \
    --tuning-table="$W/fused_tuning.json" --csv="$W/refused_3.csv" >"$W/refused_3.log" 2>&1
  log "3 virtual ranks reading the 2-rank table: rc=$? (2 expected) $(grep -o 'not on h[0-9a-z]*x[0-9]*-virtual3' "$W/refused_3.log" | head -1)"
  ls "$W"/refused_*.csv 2>/dev/null && log "UNEXPECTED: a refused run wrote a CSV"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$W/nvidia-smi.txt"
}
for c in "${checks[@]}"; do
  w=/tmp/pkbench-checks/$c
  rm -rf "$w"
  mkdir -p "$w"
  log "check $c"
  ( export CUDA_DEVICE_MAX_CONNECTIONS=32  # virtual ranks: the tests' setting (peer_group.h)
    "check_${c//-/_}" "$w" ) >> "$OUT/run.log" 2>&1
  check_rc=$?
  [ "$check_rc" = 0 ] || status=1
  log "check $c: exit $check_rc"
  tar czf "$OUT/$c.tgz" -C "$(dirname "$w")" "$c"
done

if [ "$run" = 1 ]; then
  [ ${#jobs[@]} = 0 ] && [ "$peer_modes" = 0 ] && [ ${#checks[@]} = 0 ] && run_job
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
# (The last pipeline's grep finds nothing on a clean call: under pipefail that was the call's exit status.)
exit "$status"
