#!/usr/bin/env bash
# The main job: bring missing dependencies, build, run every study this machine supports, and
# write CSVs, logs, commands, summaries, tuning tables, figures and REPORT.md to
# results/<machine>/ (or $PKBENCH_OUT).
#   scripts/run.sh                     # every study: transfer sync primitives collectives fused gemm
#   scripts/run.sh --quick             # a profile of a new machine in minutes (see below)
#   scripts/run.sh transfer --preset=fig2 --mechanisms=tma_bulk   # one study, its own flags
#   scripts/run.sh --help
# One GPU: what one GPU can measure (the transfer mechanisms against the GPU's own memory, the
# intra- and inter-SM sync, the GEMM against cuBLAS) and every multi-rank study with two
# virtual ranks (green contexts on the one GPU: rows labelled peer_mode=virtual, HBM not
# NVLink, never in a tuning table). --quick on one GPU is the same profile.
# Two or more GPUs, --quick: Figure 2's sweep one way (every mechanism and size), the Figure-3
# preset, the local-copy ceiling, the sync study with 1000 iterations per variant (measured on
# H200x2: about a minute with the build).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
# A caller that built first (device-run.sh) passes the build's seconds so they count.
start=$(( $(date +%s) - ${PKBENCH_BUILD_SECONDS:-0} ))

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
quick=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --quick)
    quick=1
    shift
    [ $# -eq 0 ] || { echo "run.sh: error: --quick takes no other arguments (got: $*)" >&2; exit 2; } ;;
esac
studies=("${PK_STUDIES[@]}")
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  pk_is_study "$1" || { echo "run.sh: error: unknown study '$1' (studies: ${PK_STUDIES[*]})" >&2; exit 2; }
  studies=("$1")
  shift
elif [ $# -gt 0 ]; then
  echo "run.sh: error: flags go after a study name (run.sh STUDY --flag ...); got: $*" >&2
  exit 2
fi
# --peer-mode=ipc|vmm: one process per GPU under mpirun (see README).
mode=$(pk_peer_mode_of "$@")
[ "$mode" = virtual ] && mode=single  # one process as well
mapfile -t launcher < <(pk_launcher "$mode") || exit 2

ngpu=$(pk_gpu_count)
if [ "${ngpu:-0}" -lt 1 ]; then
  echo "run.sh: no NVIDIA GPU on this machine (nvidia-smi lists none), so there is nothing to measure." >&2
  echo "        Figures and reports can still be redrawn from committed CSVs: scripts/plot.sh results/<machine>," >&2
  echo "        scripts/report.sh results/<machine>" >&2
  exit 3
fi

machine=$(pk_machine_name)
out=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
mkdir -p "$out"
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
pk_log "machine $machine ($ngpu GPU(s)), commit $PKBENCH_GIT_COMMIT, results in $out"

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
# Where a study's files go: transfer and sync at the machine folder's root (the summaries and
# figures read them there), every other study in its own folder.
study_dir() { case "$1" in transfer|sync) echo "$out" ;; *) echo "$out/$1" ;; esac; }

# run_study STUDY CSV [flags...]: one invocation, its command line saved in the study's
# folder beside the CSV, its output appended to the study's log.
run_study() {
  local s=$1 csv=$2 t0 rc dir
  shift 2
  dir=$(study_dir "$s")
  mkdir -p "$dir" "$(dirname "$csv")"
  local cmd=("${launcher[@]}" "$(pk_bin "$s")" "--csv=$csv" "$@")
  printf '%q ' "${cmd[@]}" | sed "s|$PKBENCH_ROOT/||g; s|$out|results/$machine|g" >> "$dir/$s.command"
  echo >> "$dir/$s.command"
  pk_log "running: $(tail -n 1 "$dir/$s.command")"
  t0=$(date +%s)
  "${cmd[@]}" 2>&1 | tee -a "$dir/$s.log"
  rc=${PIPESTATUS[0]}
  timing="$timing
$(basename "$csv" .csv),$(( $(date +%s) - t0 )),$(( $(date +%s) - start )),$rc"
  [ "$rc" -ne 0 ] && { pk_log "$s exited with $rc (see $dir/$s.log)"; status=$rc; }
  return 0
}

# The one-GPU profile of STUDY (also run.sh --quick on one GPU).
one_gpu_study() {
  local s=$1 dir virt=(--peer-mode=virtual --ranks=2)
  dir=$(study_dir "$s")
  case "$s" in
    transfer)
      run_study transfer "$out/parts/transfer.local-fig2.csv" --preset=fig2 --patterns=local
      run_study transfer "$out/parts/transfer.local-fig3.csv" --preset=fig3 --patterns=local
      run_study transfer "$out/parts/transfer.local.csv" --preset=local
      "$PKBENCH_BUILD_DIR/sweeps/pkbench_merge" "$out/transfer.csv" "$out"/parts/transfer.local*.csv || status=1 ;;
    sync)
      run_study sync "$out/sync.csv" --iters=1000
      run_study sync "$dir/virtual/sync_virtual.csv" "${virt[@]}" --levels=cross_gpu --iters=1000 ;;
    gemm) run_study gemm "$dir/gemm.csv" --shapes=4096x4096x4096,8192x8192x8192 ;;
    primitives) run_study primitives "$dir/virtual/primitives_virtual.csv" "${virt[@]}" ;;
    collectives)
      run_study collectives "$dir/virtual/collectives_virtual.csv" "${virt[@]}" --sizes=4K:64M:x4 --samples=5 ;;
    fused) run_study fused "$dir/virtual/fused_virtual.csv" "${virt[@]}" --sizes=4096 ;;
  esac
}

for s in "${studies[@]}"; do
  dir=$(study_dir "$s")
  rm -f "$dir/$s.command" "$dir/$s.log"
  if [ "$ngpu" -eq 1 ] && { [ "$quick" = 1 ] || [ ${#studies[@]} -gt 1 ]; }; then
    one_gpu_study "$s"
  elif [ "$quick" = 1 ]; then
    case "$s" in
      transfer)
        run_study transfer "$out/parts/transfer.quick-fig2.csv" --preset=fig2 --patterns=one_way
        run_study transfer "$out/parts/transfer.quick-fig3.csv" --preset=fig3
        run_study transfer "$out/parts/transfer.quick-local.csv" --preset=local
        "$PKBENCH_BUILD_DIR/sweeps/pkbench_merge" "$out/transfer.csv" "$out"/parts/transfer.quick-*.csv || status=1 ;;
      sync) run_study sync "$out/sync.csv" --iters=1000 ;;
      *) continue ;;  # --quick profiles transfer and sync on several GPUs
    esac
  else
    run_study "$s" "$dir/$s.csv" "$@"
  fi
  [ "$s" = transfer ] && transfer_elapsed=$(( $(date +%s) - start ))
done
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
if command -v gnuplot >/dev/null 2>&1; then
  "$PKBENCH_ROOT/scripts/plot.sh" "$out" || pk_log "figures not drawn (see above)"
else
  pk_log "gnuplot is not installed here: figures not drawn (scripts/plot.sh $out on a machine with gnuplot)"
fi
"$PKBENCH_ROOT/scripts/report.sh" "$out" || pk_log "REPORT.md not written (see above)"
pk_log "done in $(( $(date +%s) - start ))s: $out"
exit "$status"
