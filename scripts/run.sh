#!/usr/bin/env bash
# The main job: bring missing dependencies, build, run the studies on all visible GPUs, and
# write CSVs, logs, summaries, tuning tables, figures and REPORT.md to results/<machine>/
# (or $PKBENCH_OUT).
#   scripts/run.sh                       # every study with its default grid
#   scripts/run.sh --quick               # a profile of a new machine in minutes (see below)
#   scripts/run.sh transfer --preset=fig2 --mechanisms=tma_bulk   # one study, own flags
# --quick: the transfer study's Figure-2 sweep one way only (every mechanism and message
# size), the Figure-3 preset (its own SM sweep: an --sms list would turn off the preset's
# fitting of TMA stages to shared memory and be refused), the local-copy ceiling, and the
# sync study with 1000 iterations per variant. Measured on H200x2 (results/h200x2/quick/):
# about a minute with the build on 32 cores, well under the 5-minute plan.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
# A caller that built first (device-run.sh) passes the build's seconds so they count.
start=$(( $(date +%s) - ${PKBENCH_BUILD_SECONDS:-0} ))

quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
  [ $# -eq 0 ] || { echo "run.sh: error: --quick takes no other arguments (got: $*)" >&2; exit 2; }
fi
studies=(transfer sync)
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  studies=("$1")
  shift
fi
for s in "${studies[@]}"; do
  [ -x "$PKBENCH_BUILD_DIR/microbench/pkbench_$s" ] || [ -f "$PKBENCH_ROOT/microbench/$s/${s}_bench.cu" ] ||
    [ -f "$PKBENCH_ROOT/microbench/$s/CMakeLists.txt" ] || { echo "run.sh: error: unknown study '$s'" >&2; exit 2; }
done
# --peer-mode=ipc|vmm: one process per GPU under mpirun (see README).
mode=$(pk_peer_mode_of "$@")
mapfile -t launcher < <(pk_launcher "$mode") || exit 2
[ "$mode" = single ] || [ ${#launcher[@]} -gt 0 ] || { echo "run.sh: error: --peer-mode=$mode: unknown peer mode" >&2; exit 2; }

if ! nvidia-smi -L >/dev/null 2>&1 || [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
  echo "run.sh: no NVIDIA GPU on this machine (nvidia-smi lists none), so there is nothing to measure." >&2
  echo "        Figures and reports can still be redrawn from committed CSVs: scripts/plot.sh results/<machine>," >&2
  echo "        scripts/report.sh results/<machine>" >&2
  exit 3
fi

machine=$(pk_machine_name)
out=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
mkdir -p "$out"
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
pk_log "machine $machine, commit $PKBENCH_GIT_COMMIT, results in $out"

pk_ensure_deps || { echo "run.sh: a required dependency is missing (see above)" >&2; exit 1; }
pk_build || { echo "run.sh: build failed" >&2; exit 1; }

{
  echo "# environment of the run that wrote this folder"
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $PKBENCH_GIT_COMMIT"
  echo "host: $(hostname)"
  echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST"
  echo; nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
  echo; nvidia-smi topo -m 2>/dev/null
  echo; nvidia-smi nvlink -s 2>/dev/null | head -n 40
  echo; nvcc --version 2>/dev/null | tail -n 2
} > "$out/environment.txt" 2>&1

status=0
transfer_elapsed=""
timing="step,seconds,seconds_with_build,exit_code"
export CUDA_MODULE_LOADING=EAGER
# run_study STUDY CSV LOG [flags...]: one invocation, its command line saved beside the CSV.
run_study() {
  local s=$1 csv=$2 log=$3 t0 rc
  shift 3
  local cmd=("${launcher[@]}" "$PKBENCH_BUILD_DIR/microbench/pkbench_$s" "--csv=$csv" "$@")
  printf '%q ' "${cmd[@]}" | sed "s|$PKBENCH_ROOT/||g; s|$out|results/$machine|g" >> "$out/$s.command"
  echo >> "$out/$s.command"
  pk_log "running: $(tail -n 1 "$out/$s.command")"
  t0=$(date +%s)
  "${cmd[@]}" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  timing="$timing
$(basename "$csv" .csv),$(( $(date +%s) - t0 )),$(( $(date +%s) - start )),$rc"
  [ "$rc" -ne 0 ] && { pk_log "$s exited with $rc (see $log)"; status=$rc; }
  return 0
}

if [ "$quick" = 1 ]; then
  studies=(transfer sync)
  parts=$out/parts
  mkdir -p "$parts"
  rm -f "$out/transfer.command" "$out/sync.command" "$out/transfer.log" "$out/sync.log"
  run_study transfer "$parts/transfer.quick-fig2.csv" "$out/transfer.log" --preset=fig2 --patterns=one_way
  run_study transfer "$parts/transfer.quick-fig3.csv" "$out/transfer.log" --preset=fig3
  run_study transfer "$parts/transfer.quick-local.csv" "$out/transfer.log" --preset=local
  transfer_elapsed=$(( $(date +%s) - start ))
  "$PKBENCH_BUILD_DIR/sweeps/pkbench_merge" "$out/transfer.csv" "$parts"/transfer.quick-*.csv || status=1
  run_study sync "$out/sync.csv" "$out/sync.log" --iters=1000
else
  for s in "${studies[@]}"; do
    rm -f "$out/$s.command" "$out/$s.log"
    run_study "$s" "$out/$s.csv" "$out/$s.log" "$@"
    [ "$s" = transfer ] && transfer_elapsed=$(( $(date +%s) - start ))
  done
fi
# The transfer summary and the report state the transfer study's wall time (build included).
[ "$quick" = 1 ] && timing="$timing
transfer,$transfer_elapsed,$transfer_elapsed,$status"
printf '%s\n' "$timing" > "$out/timing.csv.tmp" && mv "$out/timing.csv.tmp" "$out/timing.csv"

elapsed=$(( $(date +%s) - start ))
pk_log "studies done in ${elapsed}s (build included)"
tools=$PKBENCH_BUILD_DIR/sweeps
if [ -n "$transfer_elapsed" ] && [ -f "$out/transfer.csv" ] && [ -x "$tools/pkbench_transfer_summary" ]; then
  "$tools/pkbench_transfer_summary" "$out/transfer.csv" "$out" "$transfer_elapsed" || status=1
  "$tools/pkbench_tune" "$out" || status=1
fi
if [[ " ${studies[*]} " == *" sync "* ]] && [ -f "$out/sync.csv" ] && [ -x "$tools/pkbench_sync_summary" ]; then
  "$tools/pkbench_sync_summary" "$out/sync.csv" "$out" || status=1
fi
"$PKBENCH_ROOT/scripts/plot.sh" "$out" || pk_log "figures not drawn (see above)"
"$PKBENCH_ROOT/scripts/report.sh" "$out" || pk_log "REPORT.md not written (see above)"
pk_log "done in $(( $(date +%s) - start ))s: $out"
exit "$status"
