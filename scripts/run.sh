#!/usr/bin/env bash
# The main job: bring missing dependencies, build, run every study this machine supports, and
# write results/<machine>/ (or $PKBENCH_OUT): per study <study>/<study>.csv, command.txt,
# timing.csv, <study>.log and a README; then the summaries, tuning tables, figures and REPORT.md
# derived from them (scripts/regenerate.sh).
#   scripts/run.sh                     # every study: transfer sync primitives collectives fused gemm
#   scripts/run.sh --quick             # a profile of a new machine in minutes (see below)
#   scripts/run.sh transfer --preset=fig2 --mechanisms=tma_bulk   # one study, its own flags
#   scripts/run.sh collectives --as=collectives_fp32 --dtypes=fp32   # a second CSV of a study
#   scripts/run.sh --list [--gpus=N]   # each study's points and estimated time (for N GPUs), nothing measured
#   scripts/run.sh STUDY --list        # the study's plan (its binary's --list), nothing measured
#   scripts/run.sh --help
# Two or more GPUs: every study; collectives, fused and primitives one process per GPU (mpirun)
# wherever mpirun is found (PKBENCH_PEER_MODE=single, or --peer-mode=single after a study name,
# keeps one process). Three or more: also what only N GPUs show (the transfer study's fan-out,
# fan-in and all-pairs points, the sync study's every pair, collectives and fused at every GPU
# count 2..N in one run: lib.sh's pk_main_flags names the presets).
# One GPU: what one GPU can measure (the transfer mechanisms against the GPU's own memory, the
# intra- and inter-SM sync, the GEMM against cuBLAS) and every multi-rank study with two
# virtual ranks (green contexts on the one GPU: rows labelled peer_mode=virtual, HBM not
# NVLink, never in a tuning table). --quick on one GPU is the same profile.
# Two or more GPUs, --quick: Figure 2's sweep one way (every mechanism and size), the Figure-3
# preset, the local-copy ceiling, the sync study with 1000 iterations per variant (measured on
# H200x2: about a minute with the build).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
# A caller that built first passes the build's seconds (PKBENCH_BUILD_SECONDS) so they count.
start=$(( $(date +%s) - ${PKBENCH_BUILD_SECONDS:-0} ))

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
# --list anywhere: the plan of every study named (each binary's --list), nothing built beyond
# the binaries, nothing measured, no GPU needed. --gpus=N: planned for a machine of N GPUs.
list=0 plan_gpus="" rest=()
for a in "$@"; do
  case "$a" in
    --list) list=1 ;;
    --gpus=*) plan_gpus=${a#--gpus=} ;;
    *) rest+=("$a") ;;
  esac
done
set -- ${rest[@]+"${rest[@]}"}
if [ -n "$plan_gpus" ]; then
  [ "$list" = 1 ] || { echo "run.sh: error: --gpus=N plans for N GPUs: it goes with --list" >&2; exit 2; }
  [[ "$plan_gpus" =~ ^[1-8]$ ]] || { echo "run.sh: error: --gpus=$plan_gpus: a GPU count of 1 to 8" >&2; exit 2; }
fi
quick=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --quick)
    quick=1
    shift
    [ $# -eq 0 ] || { echo "run.sh: error: --quick takes no other arguments (got: $*)" >&2; exit 2; }
    # --list plans the full studies (each binary's --list), not --quick's shorter runs: refused
    # rather than printing a plan that is not the one --quick would run.
    [ "$list" = 0 ] || { echo "run.sh: error: --quick --list: --list plans the full studies, not the quick profile (its runs: run.sh --help)" >&2; exit 2; } ;;
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
  # The machine planned for: --gpus=N (a stand-in Hopper, --arch), else this one's GPUs (none
  # here: 2, as the binaries plan).
  n=${plan_gpus:-$(pk_gpu_count)}
  where=()
  if [ -n "$plan_gpus" ] || [ "${n:-0}" -lt 1 ]; then
    n=${plan_gpus:-2}
    where=(--arch=sm_90a --world="$n")
    # Virtual ranks are the planned GPUs themselves (--ranks): the binary plans for them.
    [ "$(pk_peer_mode_of "$@")" = virtual ] && where=(--arch=sm_90a)
  fi
  rc=0 total=0
  for s in "${studies[@]}"; do
    bin=$(pk_bin "$s")
    [ -x "$bin" ] || pk_build "pkbench_$s" >&2 || { echo "run.sh: error: pkbench_$s could not be built" >&2; exit 1; }
    # The main job's flags, or the study's own as given.
    main=()
    [ ${#studies[@]} -gt 1 ] && [ "$n" -ge 2 ] && mapfile -t main < <(pk_main_flags "$s" "$n")
    cmd=("$bin" ${main[@]+"${main[@]}"} ${plan[@]+"${plan[@]}"} ${where[@]+"${where[@]}"} --list)
    echo "== $s: $(basename "$bin") ${cmd[*]:1}"
    err=$(mktemp)
    "${cmd[@]}" 2> "$err" || rc=$?
    cat "$err" >&2
    # The binary's plan line: "<program>: plan: N points, about S s ..." (harness/study.cpp).
    line=$(grep -m1 ': plan: ' "$err" | sed 's/^[^:]*: plan: //')
    rm -f "$err"
    secs=$(sed -n 's/^[0-9]* points, about \([0-9.e+]*\) s.*/\1/p' <<< "$line")
    summary+=("$(printf '%-12s %s' "$s" "${line:-no plan line}")")
    [ -n "$secs" ] && total=$(awk -v a="$total" -v b="$secs" 'BEGIN { print a + b }')
  done
  echo "== plan for $n GPU(s) ($([ -n "${where[*]:-}" ] && echo "planned, --arch=sm_90a" || echo "this machine's GPUs")):"
  printf '%s\n' "${summary[@]}"
  echo "total: about $(awk -v t="$total" 'BEGIN { printf "%.0f", t }') s of measurement (estimates: each binary's --list;" \
    "the build and the derived summaries come on top)"
  exit "$rc"
fi

# Peer modes are checked before anything runs (pk_launcher refuses an unknown one), the
# environment's default too.
m=$(pk_peer_mode_of "$@")
err=$(pk_launcher "$m" 2>&1 > /dev/null) || { echo "run.sh: error: --peer-mode=$m: $err" >&2; exit 2; }
if [ -n "${PKBENCH_PEER_MODE:-}" ]; then
  err=$(pk_launcher "$PKBENCH_PEER_MODE" 2>&1 > /dev/null) ||
    { echo "run.sh: error: PKBENCH_PEER_MODE=$PKBENCH_PEER_MODE: $err" >&2; exit 2; }
fi

ngpu=$(pk_gpu_count)
if [ "${ngpu:-0}" -lt 1 ]; then
  # Bad flags come first, GPU or not (exit 2 with the flag named): each study's binary checks
  # them as its --list would (planned for a stand-in GPU; ipc/vmm need mpirun, so left out).
  if [ $# -gt 0 ]; then
    check=()
    for a in "$@"; do
      case "$a" in --peer-mode=ipc|--peer-mode=vmm) ;; *) check+=("$a") ;; esac
    done
    for s in "${studies[@]}"; do
      bin=$(pk_bin "$s")
      if [ ! -x "$bin" ]; then
        echo "run.sh: note: $(basename "$bin") is not built: its flags are not checked here" >&2
        continue
      fi
      err=$("$bin" ${check[@]+"${check[@]}"} --list --arch=sm_90a 2>&1 >/dev/null)
      rc=$?
      if [ "$rc" = 2 ]; then
        printf '%s\n' "$err" >&2
        exit 2
      fi
    done
  fi
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
# The studies' binaries and their tools (pk_derive_targets), the sweeps' and the summaries
# scripts/regenerate.sh runs on every folder (pk_<study>_regenerate_tools).
targets=()
for s in "${PK_STUDIES[@]}"; do targets+=($(pk_study_call "$s" regenerate_tools)); done
targets+=(pkbench_tune pkbench_report pkbench_merge)
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
  local s=$1 csv=$2 t0 rc dir log launcher=()
  shift 2
  dir=$out/$s
  log=$(realpath -m "$dir/${as:-$s}.log")
  mkdir -p "$dir" "$(dirname "$csv")"
  # One process per GPU under mpirun (ipc, vmm), or one process (single, virtual): lib.sh's
  # pk_study_peer_mode.
  pk_launcher_lines "$(pk_study_peer_mode "$s" "$ngpu" "$@")" || { status=2; return 0; }
  # $bin: another study's binary run as a part of this study (the seqpar study's Ulysses runs).
  local cmd=(${launcher[@]+"${launcher[@]}"} "$(pk_bin "${bin:-$s}")" "--csv=$csv" "$@")
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

for s in "${studies[@]}"; do
  dir=$out/$s
  if [ -n "$as" ]; then
    run_study "$s" "$(realpath -m "$dir/$as.csv")" "$@"
    continue
  fi
  # The study's main run replaces what an earlier one left.
  mkdir -p "$dir"
  rm -f "$dir/command.txt" "$dir/timing.csv" "$dir/$s.log"
  pk_study_call "$s" clean "$dir"
  if [ "$ngpu" -eq 1 ] && { [ "$quick" = 1 ] || [ ${#studies[@]} -gt 1 ]; }; then
    # The one-GPU profile (also run.sh --quick on one GPU): two virtual ranks for the studies
    # with ranks.
    pk_study_call "$s" one_gpu "$dir" --peer-mode=virtual --ranks=2
  elif [ "$quick" = 1 ]; then
    if ! pk_study_has "$s" quick; then
      pk_log "$s: not in --quick on several GPUs ($(pk_and_list $(pk_studies_with_hook quick)) only)"
      continue
    fi
    pk_study_call "$s" quick "$dir"
  else
    main=()
    [ ${#studies[@]} -gt 1 ] && mapfile -t main < <(pk_main_flags "$s" "$ngpu")
    run_study "$s" "$dir/$s.csv" ${main[@]+"${main[@]}"} "$@"
    # What the study runs after its main run (its reference tool, its extra rows), given
    # whether it runs alone (not in the main job) and the main run's flags.
    pk_study_call "$s" after_main "$dir" "$([ ${#studies[@]} -eq 1 ] && echo 1 || echo 0)" \
      ${main[@]+"${main[@]}"} "$@" || status=1
  fi
  write_readme "$s"
done
pk_log "studies done in $(( $(date +%s) - start ))s (build included)"

# Tuning tables on real peers (virtual and local rows feed none): the command kept beside them,
# so scripts/regenerate.sh reruns exactly it.
if [ "$ngpu" -ge 2 ]; then
  tune_src=()
  for s in $(pk_studies_with tuned); do [ -f "$out/$s/$s.csv" ] && tune_src+=("$(shown "$out/$s/$s.csv")"); done
  if [ ${#tune_src[@]} -gt 0 ]; then
    mkdir -p "$out/tuning"
    { echo "# Run from the repository root on the CPU (scripts/regenerate.sh runs these lines)."
      echo "build/bin/pkbench_tune --out $(shown "$out/tuning") ${tune_src[*]}"; } > "$out/tuning/command.txt"
  fi
fi
(cd "$PKBENCH_ROOT" && "$PKBENCH_ROOT/scripts/regenerate.sh" "$(shown "$out")") || { pk_log "deriving from the CSVs failed (see above)"; status=1; }
pk_log "done in $(( $(date +%s) - start ))s: $out"
exit "$status"
