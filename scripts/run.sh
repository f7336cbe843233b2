#!/usr/bin/env bash
# The main job: bring missing dependencies, build, run every study this machine supports, and
# write results/<machine>/ (or $PKBENCH_OUT): per study <study>/<study>.csv, command.txt,
# timing.csv, <study>.log and a README; then the summaries, tuning tables, figures and REPORT.md
# derived from them (scripts/regenerate.sh).
#   scripts/run.sh                     # every study: transfer sync primitives collectives fused gemm
#   scripts/run.sh --quick             # a profile of a new machine in minutes (see below)
#   scripts/run.sh transfer --preset=fig2 --mechanisms=tma_bulk   # one study, its own flags
#   scripts/run.sh collectives --as=collectives_fp32 --dtypes=fp32   # a second CSV of a study
#   scripts/run.sh STUDY --list        # the study's plan (its binary's --list), nothing measured
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
# A caller that built first (scripts/device.sh) passes the build's seconds so they count.
start=$(( $(date +%s) - ${PKBENCH_BUILD_SECONDS:-0} ))

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
# --list anywhere: the plan of every study named (each binary's --list), nothing built beyond
# the binaries, nothing measured, no GPU needed.
list=0 rest=()
for a in "$@"; do [ "$a" = --list ] && list=1 || rest+=("$a"); done
set -- "${rest[@]}"
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
# --as=NAME: this run's CSV is <study>/NAME.csv (NAME may hold a subfolder: peer-modes/ipc/transfer,
# or lead to another study's folder: ../transfer/peer-modes/ipc/sync, never out of the machine
# folder), beside the study's main CSV; its command is appended to the study's command.txt.
as="" flags=()
for a in "$@"; do
  case "$a" in
    --as=*) as=${a#--as=} ;;
    *) flags+=("$a") ;;
  esac
done
set -- "${flags[@]}"
if [ -n "$as" ]; then
  [[ "$as" =~ ^[A-Za-z0-9_./-]+$ && "$as" != /* ]] ||
    { echo "run.sh: error: --as=$as: a relative name of letters, digits, _ . - and /" >&2; exit 2; }
  [ ${#studies[@]} = 1 ] || { echo "run.sh: error: --as needs one study (run.sh STUDY --as=NAME ...)" >&2; exit 2; }
  # The main run's names (the study's, its parts' study.<part>) stay its own: its wall time is read by them.
  case "$as" in
    "${studies[0]}"|"${studies[0]}".*) echo "run.sh: error: --as=$as: the name of the study's main run; pick another" >&2; exit 2 ;;
  esac
fi

if [ "$list" = 1 ]; then
  # A binary refuses --peer-mode=ipc|vmm outside mpirun, --list too: the plan is made without it.
  plan=()
  for a in "$@"; do
    case "$a" in
      --peer-mode=ipc|--peer-mode=vmm) echo "run.sh: $a: planned in one process (the binary needs mpirun for $a)" ;;
      *) plan+=("$a") ;;
    esac
  done
  rc=0
  for s in "${studies[@]}"; do
    bin=$(pk_bin "$s")
    [ -x "$bin" ] || pk_build "pkbench_$s" >&2 || { echo "run.sh: error: pkbench_$s could not be built" >&2; exit 1; }
    echo "== $s: $(basename "$bin") ${plan[*]} --list"
    "$bin" "${plan[@]}" --list || rc=$?
  done
  exit "$rc"
fi

# --peer-mode=ipc|vmm: one process per GPU under mpirun (see README).
mode=$(pk_peer_mode_of "$@")
[ "$mode" = virtual ] && mode=single  # one process as well
mapfile -t launcher < <(pk_launcher "$mode") || exit 2

ngpu=$(pk_gpu_count)
if [ "${ngpu:-0}" -lt 1 ]; then
  echo "run.sh: no NVIDIA GPU on this machine (nvidia-smi lists none), so there is nothing to measure." >&2
  echo "        Plans: scripts/run.sh [STUDY ...] --list. Summaries, figures and reports can still be" >&2
  echo "        redrawn from committed CSVs: scripts/regenerate.sh results/<machine>" >&2
  exit 3
fi

machine=$(pk_machine_name)
out=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
mkdir -p "$out"
if [ -n "$as" ]; then
  case "$(realpath -m "$out/${studies[0]}/$as")" in
    "$(realpath -m "$out")"/*) ;;
    *) echo "run.sh: error: --as=$as leads out of $out" >&2; exit 2 ;;
  esac
fi
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
pk_log "machine $machine ($ngpu GPU(s)), commit $PKBENCH_GIT_COMMIT, results in $out"

pk_ensure_deps || { echo "run.sh: a required dependency is missing (see above)" >&2; exit 1; }
for s in "${studies[@]}"; do
  [[ " ${PK_NVSHMEM_STUDIES[*]} " == *" $s "* ]] && { pk_nvshmem || true; break; }
done
targets=(pkbench_transfer_summary pkbench_sync_summary pkbench_tune pkbench_report pkbench_merge)
for s in "${studies[@]}"; do targets+=("pkbench_$s"); done
targets+=($(pk_derive_targets "${studies[@]}"))
pk_build "${targets[@]}" || { echo "run.sh: build failed" >&2; exit 1; }

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
export CUDA_MODULE_LOADING=EAGER
# Paths as the repository names them (results/<machine>/...), for the files run.sh writes.
shown() { printf '%s' "$1" | sed "s|$PKBENCH_ROOT/||g"; }

# run_study STUDY CSV [flags...]: one invocation, its command line appended to the study's
# command.txt, its output to the study's log, its wall time to the study's timing.csv.
run_study() {
  local s=$1 csv=$2 t0 rc dir log
  shift 2
  dir=$out/$s
  log=$(realpath -m "$dir/${as:-$s}.log")
  mkdir -p "$dir" "$(dirname "$csv")"
  local cmd=("${launcher[@]}" "$(pk_bin "$s")" "--csv=$csv" "$@")
  printf '%q ' "${cmd[@]}" | sed "s|$PKBENCH_ROOT/||g" >> "$dir/command.txt"
  echo >> "$dir/command.txt"
  pk_log "running: $(tail -n 1 "$dir/command.txt")"
  t0=$(date +%s)
  "${cmd[@]}" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  last_rc=$rc
  [ -f "$dir/timing.csv" ] || echo "step,seconds,seconds_with_build,exit_code" > "$dir/timing.csv"
  echo "${as:-$(basename "$csv" .csv)},$(( $(date +%s) - t0 )),$(( $(date +%s) - start )),$rc" >> "$dir/timing.csv"
  [ "$rc" -ne 0 ] && { pk_log "$s exited with $rc (see $(shown "$log"))"; status=$rc; }
  return 0
}
# merge STUDY PARTS...: the study's main CSV from its parts.
merge() {
  local s=$1
  shift
  "$(pk_bin merge)" "$out/$s/$s.csv" "$@" || status=1
}
# A short README for a study folder run.sh wrote.
write_readme() {
  local s=$1 dir=$out/$1
  {
    echo "# $machine / $s"
    echo
    echo "Written by \`scripts/run.sh\` at commit $PKBENCH_GIT_COMMIT on $(date -u +%Y-%m-%d) ($ngpu GPU(s))."
    echo "The exact commands are in \`command.txt\`, their output in the \`.log\` files, each one's wall time"
    echo "(build included) in \`timing.csv\`; \`../environment.txt\` is the machine. Summaries and figures"
    echo "beside the CSVs are derived from them (\`scripts/regenerate.sh $(shown "$out")\`); \`../REPORT.md\`"
    echo "holds the targets. CSVs under \`virtual/\` ran N ranks on one GPU: HBM, not NVLink."
  } > "$dir/README.md"
}

# The fused cost model's communicator-only rows (lib.sh: PK_FUSED_COMM_ONLY_CSV,
# pk_fused_comm_only_flags), where the fused CSV has inter-SM GEMM+RS / GEMM+AR rows: measured
# with that run's peer mode and ranks (FLAGS: its flags), into a temporary CSV renamed beside it
# once the run exited 0, so scripts/regenerate.sh never passes half-written rows to the model.
comm_only() {
  local csv=$1 dir final tmp peer=() flags=()
  shift
  dir=$(dirname "$csv")
  final=$dir/$PK_FUSED_COMM_ONLY_CSV
  tmp=$dir/${PK_FUSED_COMM_ONLY_CSV%.csv}.tmp.csv
  pk_fused_needs_comm_only "$csv" || { pk_log "fused: no inter-SM GEMM+RS / GEMM+AR rows on 2 or more GPUs: no communicator-only rows"; return 0; }
  rm -f "$tmp"
  mapfile -t peer < <(pk_fused_peer_flags "$@")
  mapfile -t flags < <(pk_fused_comm_only_flags)
  run_study fused "$tmp" ${peer[@]+"${peer[@]}"} "${flags[@]}"
  if [ "$last_rc" = 0 ] && [ -s "$tmp" ]; then
    mv -f "$tmp" "$final"
    echo "mv $(shown "$tmp") $(shown "$final")" >> "$dir/command.txt"
  else
    rm -f "$tmp"
    pk_log "fused: the communicator-only rows failed: the cost model is not run on the inter-SM GEMM+RS / GEMM+AR rows"
  fi
}

# The one-GPU profile of STUDY (also run.sh --quick on one GPU).
one_gpu_study() {
  local s=$1 dir=$out/$1 virt=(--peer-mode=virtual --ranks=2)
  case "$s" in
    transfer)
      run_study transfer "$dir/parts/transfer.local-fig2.csv" --preset=fig2 --patterns=local
      run_study transfer "$dir/parts/transfer.local-fig3.csv" --preset=fig3 --patterns=local
      run_study transfer "$dir/parts/transfer.local.csv" --preset=local
      merge transfer "$dir"/parts/transfer.local*.csv ;;
    sync)
      run_study sync "$dir/sync.csv" --iters=1000
      run_study sync "$dir/virtual/sync_virtual.csv" "${virt[@]}" --levels=cross_gpu --iters=1000 ;;
    gemm) run_study gemm "$dir/gemm.csv" --shapes=4096x4096x4096,8192x8192x8192 ;;
    primitives) run_study primitives "$dir/virtual/primitives_virtual.csv" "${virt[@]}" ;;
    collectives)
      run_study collectives "$dir/virtual/collectives_virtual.csv" "${virt[@]}" --sizes=4K:64M:x4 --samples=5 ;;
    fused) run_study fused "$dir/virtual/fused_virtual.csv" "${virt[@]}" --sizes=4096 ;;
  esac
}

for s in "${studies[@]}"; do
  dir=$out/$s
  if [ -n "$as" ]; then
    run_study "$s" "$(realpath -m "$dir/$as.csv")" "$@"
    continue
  fi
  # The study's main run replaces what an earlier one left.
  mkdir -p "$dir"
  rm -f "$dir/command.txt" "$dir/timing.csv" "$dir/$s.log"
  [ "$s" = fused ] && rm -f "$dir/$PK_FUSED_COMM_ONLY_CSV"
  if [ "$ngpu" -eq 1 ] && { [ "$quick" = 1 ] || [ ${#studies[@]} -gt 1 ]; }; then
    one_gpu_study "$s"
  elif [ "$quick" = 1 ]; then
    case "$s" in
      transfer)
        run_study transfer "$dir/parts/transfer.quick-fig2.csv" --preset=fig2 --patterns=one_way
        run_study transfer "$dir/parts/transfer.quick-fig3.csv" --preset=fig3
        run_study transfer "$dir/parts/transfer.quick-local.csv" --preset=local
        merge transfer "$dir"/parts/transfer.quick-*.csv ;;
      sync) run_study sync "$dir/sync.csv" --iters=1000 ;;
      *) pk_log "$s: not in --quick on several GPUs (transfer and sync only)"; continue ;;
    esac
  else
    run_study "$s" "$dir/$s.csv" "$@"
    [ "$s" = fused ] && comm_only "$dir/$s.csv" "$@"
  fi
  write_readme "$s"
done
pk_log "studies done in $(( $(date +%s) - start ))s (build included)"

# Tuning tables on real peers (virtual and local rows feed none): the command kept beside them,
# so scripts/regenerate.sh reruns exactly it.
if [ "$ngpu" -ge 2 ]; then
  tune_src=()
  for s in transfer collectives fused; do [ -f "$out/$s/$s.csv" ] && tune_src+=("$(shown "$out/$s/$s.csv")"); done
  if [ ${#tune_src[@]} -gt 0 ]; then
    mkdir -p "$out/tuning"
    { echo "# Run from the repository root on the CPU (scripts/regenerate.sh runs these lines)."
      echo "build/bin/pkbench_tune --out $(shown "$out/tuning") ${tune_src[*]}"; } > "$out/tuning/command.txt"
  fi
fi
(cd "$PKBENCH_ROOT" && "$PKBENCH_ROOT/scripts/regenerate.sh" "$(shown "$out")") || { pk_log "deriving from the CSVs failed (see above)"; status=1; }
pk_log "done in $(( $(date +%s) - start ))s: $out"
exit "$status"
