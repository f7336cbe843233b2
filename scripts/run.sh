#!/usr/bin/env bash
# The main job: build, run the studies on all visible GPUs, and write CSVs, logs, the
# summary, the tuning table and the figures to results/<machine>/ (or $PKBENCH_OUT).
#   scripts/run.sh                       # every study with its default grid
#   scripts/run.sh transfer --preset=fig2 --mechanisms=tma_bulk   # one study, own flags
set -uo pipefail
source "$(dirname "$0")/lib.sh"
# A caller that built first (device-run.sh) passes the build's seconds so they count.
start=$(( $(date +%s) - ${PKBENCH_BUILD_SECONDS:-0} ))

if ! nvidia-smi -L >/dev/null 2>&1 || [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
  echo "run.sh: no NVIDIA GPU on this machine (nvidia-smi lists none), so there is nothing to measure." >&2
  echo "        Figures can still be redrawn from committed CSVs: scripts/plot.sh results/<machine>" >&2
  exit 3
fi

studies=(transfer sync)
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  studies=("$1")
  shift
fi
for s in "${studies[@]}"; do
  [ -x "$PKBENCH_BUILD_DIR/microbench/pkbench_$s" ] || [ -f "$PKBENCH_ROOT/microbench/$s/${s}_bench.cu" ] ||
    { echo "run.sh: unknown study '$s'" >&2; exit 2; }
done

machine=$(pk_machine_name)
out=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
mkdir -p "$out"
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
pk_log "machine $machine, commit $PKBENCH_GIT_COMMIT, results in $out"

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
# --peer-mode=ipc|vmm: one process per GPU under mpirun (see README).
mode=$(pk_peer_mode_of "$@")
mapfile -t launcher < <(pk_launcher "$mode") || exit 2
export CUDA_MODULE_LOADING=EAGER
for s in "${studies[@]}"; do
  cmd=("${launcher[@]}" "$PKBENCH_BUILD_DIR/microbench/pkbench_$s" "--csv=$out/$s.csv" "$@")
  printf '%q ' "${cmd[@]}" | sed "s|$PKBENCH_ROOT/||g; s|$out|results/$machine|g" > "$out/$s.command"
  echo >> "$out/$s.command"
  pk_log "running: $(cat "$out/$s.command")"
  "${cmd[@]}" 2>&1 | tee "$out/$s.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && { pk_log "$s exited with $rc (see $out/$s.log)"; status=$rc; }
  [ "$s" = transfer ] && transfer_elapsed=$(( $(date +%s) - start ))
done

elapsed=$(( $(date +%s) - start ))
pk_log "studies done in ${elapsed}s (build included)"
# The transfer summary states the study's own wall time (build included) against its target.
if [ -n "$transfer_elapsed" ] && [ -x "$PKBENCH_BUILD_DIR/sweeps/pkbench_transfer_summary" ]; then
  "$PKBENCH_BUILD_DIR/sweeps/pkbench_transfer_summary" "$out/transfer.csv" "$out" "$transfer_elapsed" || status=1
fi
if [[ " ${studies[*]} " == *" sync "* ]] && [ -x "$PKBENCH_BUILD_DIR/sweeps/pkbench_sync_summary" ]; then
  "$PKBENCH_BUILD_DIR/sweeps/pkbench_sync_summary" "$out/sync.csv" "$out" || status=1
fi
"$PKBENCH_ROOT/scripts/plot.sh" "$out" || pk_log "figures not drawn (see above)"
exit "$status"
