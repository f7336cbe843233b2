#!/usr/bin/env bash
# Reproduce the paper's figures and tables that this machine allows, one step at a time,
# into results/<machine>/ (or $PKBENCH_OUT), then the summaries, tuning tables, cost model,
# figures and REPORT.md from everything measured so far.
#   scripts/reproduce.sh                        # every step the hardware allows
#   scripts/reproduce.sh --resume               # the same, keeping the steps an earlier run finished
#   scripts/reproduce.sh --only fig2,fig3       # those steps only (--only repeats; bare names work too)
#   scripts/reproduce.sh --list [--gpus=N]      # the plan: steps, estimated seconds, refusals
#   scripts/reproduce.sh --dry-run --gpus=2     # print the commands, run nothing
# Options: --resume, --only STEP[,STEP...], --gpus=N (plan for N GPUs; a real run refuses more
# than are present), --timeout=S (per step, default 540), --list, --dry-run, -h/--help.
# A step writes results/<machine>/<study>/parts/<study>.<step>.csv and a .done marker when its
# study exited 0. Without --resume every requested step runs again; with --resume a finished
# part is kept, so a job stopped by its time limit continues where it stopped. Either way every
# finished part is merged into the CSV its plan line names (transfer/transfer.csv, ...).
# Steps that cannot run here are named with the reason and skipped: multicast (never run),
# more GPUs than present, a study not built yet.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

# ---- The plan: one line per step, each declared by its study -----------------------------
#   name | paper item | study | GPUs needed | est. seconds on H200x2 | study flags | needs | CSV
# flags: one study invocation, or several separated by ';' (one part each). needs: mpi (one
# process per GPU under mpirun, --peer-mode=ipc), multicast (never run here), steps:A B (no
# run of its own: the figure is drawn from steps A and B, which it stands for). CSV: where
# the step's finished parts are merged, relative to the results folder.
# Each study's study.sh prints its steps (pk_<study>_reproduce_steps), each line led by its
# place in the plan (the steps of the studies interleave: the two-GPU figures first, the 8-GPU
# numbers last), the study's name left out; the plan is their lines in that order.
# Estimates (H200x2, wall time of the step including the process start): the step times of
# the measured `reproduce.sh all` (347 s in all, build included; its README is in git history:
# git show 4fd1c76:results/h200x2/reproduce-58339564/README.md), rounded up to 5 s.
PLAN=$(for s in "${PK_STUDIES[@]}"; do
  pk_study_call "$s" reproduce_steps | awk -F'|' -v OFS='|' -v s="$s" 'NF { $3 = $3 OFS s; print }'
done | sort -t'|' -k1,1n | cut -d'|' -f2-)
BUILD_S=60          # configure + build of the study binaries on a GPU machine (README: 12-19 s on 32 cores)

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  echo "steps: $(printf '%s\n' "$PLAN" | cut -d'|' -f1 | tr '\n' ' ')all"
}

list=0 dry=0 resume=0 gpus="" step_timeout=540
names=()
while [ $# -gt 0 ]; do
  a=$1
  shift
  case "$a" in
    --list) list=1 ;;
    --dry-run) dry=1 ;;
    --resume) resume=1 ;;
    --only)
      [ $# -gt 0 ] && [ -n "$1" ] && [[ "$1" != -* ]] || { echo "reproduce.sh: error: --only needs STEP[,STEP...]" >&2; exit 2; }
      IFS=, read -ra more <<< "$1"; names+=("${more[@]}"); shift ;;
    --only=*)
      [ -n "${a#--only=}" ] || { echo "reproduce.sh: error: --only needs STEP[,STEP...]" >&2; exit 2; }
      IFS=, read -ra more <<< "${a#--only=}"; names+=("${more[@]}") ;;
    --gpus=*) gpus=${a#--gpus=}; [[ "$gpus" =~ ^[0-9]+$ ]] || { echo "reproduce.sh: error: $a: not a GPU count" >&2; exit 2; } ;;
    --timeout=*) step_timeout=${a#--timeout=}; [[ "$step_timeout" =~ ^[1-9][0-9]*$ ]] || { echo "reproduce.sh: error: $a: not a number of seconds" >&2; exit 2; } ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "reproduce.sh: error: unknown option '$a'" >&2; usage >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done
all_names=$(printf '%s\n' "$PLAN" | cut -d'|' -f1)
for n in ${names[@]+"${names[@]}"}; do
  [ "$n" = all ] && continue
  printf '%s\n' "$all_names" | grep -qx -- "$n" || { echo "reproduce.sh: error: unknown step '$n' (steps: $(echo $all_names) all)" >&2; exit 2; }
done
[ ${#names[@]} = 0 ] && names=(all)
printf '%s\n' "${names[@]}" | grep -qx all && names=($all_names)

line_of() { printf '%s\n' "$PLAN" | awk -F'|' -v n="$1" '$1 == n'; }
field() { cut -d'|' -f"$2" <<< "$1"; }  # plan line, field number (1 name .. 8 CSV)
alias_of() {  # step -> the steps it stands for ("" for a step that runs something)
  local needs
  needs=$(field "$(line_of "$1")" 7)
  [[ "$needs" == steps:* ]] && echo "${needs#steps:}"
}

present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
present=${present:-0}
if [ -n "$gpus" ] && [ "$dry" = 0 ] && [ "$list" = 0 ] && [ "$gpus" -gt "$present" ]; then
  echo "reproduce.sh: error: --gpus=$gpus but this machine has $present GPU(s); --gpus above that is for --list and --dry-run" >&2
  exit 2
fi
ngpus=${gpus:-$present}
export PKBENCH_RANKS=${PKBENCH_RANKS:-$ngpus}  # mpirun -np for the one-process-per-GPU steps

# Why a step cannot run here ("" if it can): the order of the checks is the order of the reasons.
refusal() {  # step line
  local study need needs
  IFS='|' read -r _ _ study need _ _ needs _ <<< "$1"
  if [ "$needs" = multicast ]; then
    echo "NVSwitch multicast is never run (it can put a host's GPUs out of service; see README.md)"
    return
  fi
  if [ ! -f "$PKBENCH_ROOT/microbench/$study/CMakeLists.txt" ] && [ ! -f "$PKBENCH_ROOT/microbench/$study/${study}_bench.cu" ]; then
    echo "the $study study is not built yet (microbench/$study has no binary)"
    return
  fi
  if [ "$needs" = pending ]; then
    echo "the $study study has no reproduce command yet (declare its flags on this step's line in microbench/$study/study.sh)"
    return
  fi
  if [ "$needs" = mpi ] && [ "$dry" = 0 ] && [ "$list" = 0 ] && ! command -v mpirun >/dev/null 2>&1; then
    echo "needs mpirun (one process per GPU): apt install openmpi-bin libopenmpi-dev"
    return
  fi
  if [ "$ngpus" -lt "$need" ]; then
    echo "needs $need GPUs, $ngpus present"
    return
  fi
  echo ""
}

# ---- --list: the plan ----------------------------------------------------------------------
if [ "$list" = 1 ]; then
  echo "plan for $ngpus GPU(s) (estimated seconds on H200x2):"
  printf '  %-9s %-11s %6s  %s\n' step study est. "what (or why not)"
  n_run=0 total=0
  for n in "${names[@]}"; do
    l=$(line_of "$n")
    IFS='|' read -r _ what study _ est _ _ _ <<< "$l"
    why=$(refusal "$l")
    if [ -n "$why" ]; then
      printf '  %-9s %-11s %6s  cannot: %s (%s)\n' "$n" "$study" "-" "$why" "$what"
    elif [ -n "$(alias_of "$n")" ]; then
      printf '  %-9s %-11s %6s  %s: runs %s\n' "$n" "$study" "=" "$what" "$(alias_of "$n")"
    else
      printf '  %-9s %-11s %5ss  %s\n' "$n" "$study" "$est" "$what"
      n_run=$((n_run + 1)) total=$((total + est))
    fi
  done
  echo "  total: $n_run steps, ~$(( (total + BUILD_S + 59) / 60 )) min with the build ($((total + BUILD_S)) s)"
  exit 0
fi

# ---- run ------------------------------------------------------------------------------------
if [ "$dry" = 0 ] && [ "$present" = 0 ]; then
  echo "reproduce.sh: no NVIDIA GPU on this machine, nothing to measure (--list and --dry-run plan without one)" >&2
  exit 3
fi
machine=$(pk_machine_name 2>/dev/null || echo "dry-run")
out=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
export CUDA_MODULE_LOADING=EAGER
run_cmd() {  # prints, then runs unless --dry-run
  printf '  $'; printf ' %q' "$@"; printf '\n'
  [ "$dry" = 1 ] || "$@"
}
run_to() {  # FILE CMD...: run_cmd with stdout into FILE
  local file=$1
  shift
  printf '  $'; printf ' %q' "$@"; printf ' > %q\n' "$file"
  [ "$dry" = 1 ] || "$@" > "$file"
}

# A step that stands for others (fig4: fig8 and fig9) is replaced by them, once each.
expanded=()
for n in "${names[@]}"; do
  a=$(alias_of "$n")
  if [ -n "$a" ] && [ -z "$(refusal "$(line_of "$n")")" ]; then
    pk_log "$n: drawn from the rows of $a"
    # shellcheck disable=SC2206  # the step names, split on purpose
    expanded+=($a)
  else
    expanded+=("$n")
  fi
done
names=()  # each once, in plan order
for n in $all_names; do
  printf '%s\n' "${expanded[@]}" | grep -qx -- "$n" && names+=("$n")
done

todo=() refused=0
for n in "${names[@]}"; do
  l=$(line_of "$n")
  why=$(refusal "$l")
  if [ -n "$why" ]; then
    pk_log "$n: cannot run here: $why"
    refused=$((refused + 1))
  else
    todo+=("$n")
  fi
done
if [ ${#todo[@]} = 0 ]; then
  pk_log "none of the requested steps can run here"
  exit 3
fi

studies=$(for n in "${todo[@]}"; do field "$(line_of "$n")" 3; done | sort -u)
targets=()
for s in $studies; do targets+=("pkbench_$s"); done
for s in $studies; do targets+=($(pk_study_call "$s" reproduce_targets)); done
targets+=(pkbench_merge)
for s in "${PK_STUDIES[@]}"; do targets+=($(pk_study_call "$s" regenerate_tools)); done
targets+=(pkbench_tune pkbench_report)
pk_log "machine $machine ($ngpus GPUs), commit $PKBENCH_GIT_COMMIT, results in $out"
if [ "$dry" = 0 ]; then
  pk_ensure_deps build || exit 1
  pk_build "${targets[@]}" || { pk_log "build failed"; exit 1; }
else
  echo "would build: ${targets[*]}"
fi

start=$(date +%s) done_n=0 status=0
planned=()  # the CSVs this run writes parts of (a dry run derives from them as if they existed)
for n in "${todo[@]}"; do
  IFS='|' read -r _ what study need est flags needs csv <<< "$(line_of "$n")"
  bin=$(pk_bin "$study")
  if [ "$dry" = 0 ] && [ ! -x "$bin" ]; then
    pk_log "$n: cannot run here: pkbench_$study was not built (see the CMake output: a dependency is missing)"
    refused=$((refused + 1))
    continue
  fi
  planned+=("$out/$csv")
  mode=single
  [ "$needs" = mpi ] && mode=ipc
  mapfile -t launcher < <(pk_launcher "$mode")
  IFS=';' read -ra invocations <<< "$flags"
  [ ${#invocations[@]} = 0 ] && invocations=("")
  k=0
  for inv in "${invocations[@]}"; do
    k=$((k + 1))
    [ "$mode" = ipc ] && inv="$inv --peer-mode=ipc"
    part=$out/$study/parts/$study.$n.csv
    [ "${#invocations[@]}" -gt 1 ] && part=$out/$study/parts/$study.$n.$k.csv
    [ "$dry" = 1 ] || mkdir -p "$out/$study/parts"
    if [ -f "$part.done" ]; then
      if [ "$resume" = 1 ]; then
        pk_log "$n: $(basename "$part") finished in an earlier run, kept (--resume)"
        continue
      fi
      [ "$dry" = 1 ] || rm -f "$part.done"
    fi
    pk_log "$n ($what): step $((done_n + 1)) of ${#todo[@]}, ~${est}s; elapsed $(( $(date +%s) - start ))s"
    # shellcheck disable=SC2086
    run_cmd timeout "$step_timeout" "${launcher[@]}" "$bin" --csv="$part" $inv
    rc=$?
    if [ "$dry" = 0 ]; then
      if [ "$rc" = 0 ]; then touch "$part.done"; else pk_log "$n: exit $rc (the part is kept; the step reruns next time)"; status=1; fi
    fi
  done
  done_n=$((done_n + 1))
done

# ---- merge the finished parts, then everything derived from them -----------------------------
# From the repository's root with relative paths, so that what the tools record (the tuning
# tables' sources, the cost model's ceilings) names no machine's layout.
rp() { case "$1" in "$PKBENCH_ROOT"/*) echo "${1#"$PKBENCH_ROOT"/}" ;; *) echo "$1" ;; esac; }
PKBENCH_BUILD_DIR=$(realpath -m "$PKBENCH_BUILD_DIR")
cd "$PKBENCH_ROOT" || exit 1
out=$(rp "$out")
rel_planned=()
for p in "${planned[@]:-}"; do [ -n "$p" ] && rel_planned+=("$(rp "$p")"); done
planned=("${rel_planned[@]:-}")
# have FILE: it exists, or (dry run) this run would write it.
have() {
  [ -f "$1" ] && return 0
  [ "$dry" = 1 ] && printf '%s\n' "${planned[@]:-}" | grep -qx -- "$1"
}
tools=$(pk_bin_dir)
# Every CSV of the plan, from the finished parts of each step that merges into it.
for dest in $(printf '%s\n' "$PLAN" | cut -d'|' -f8 | awk '!seen[$0]++'); do
  done_parts=()
  while IFS='|' read -r n _ study _ _ _ _ csv; do
    [ "$csv" = "$dest" ] || continue
    parts=$out/$study/parts
    for p in "$parts/$study.$n.csv" "$parts/$study.$n".[0-9]*.csv; do
      [ -f "$p" ] || continue
      if [ -f "$p.done" ] || { [ "$dry" = 1 ] && printf '%s\n' "${todo[@]}" | grep -qx -- "$n"; }; then done_parts+=("$p"); fi
    done
    # A dry run names the parts this run would write.
    if [ "$dry" = 1 ] && printf '%s\n' "${todo[@]}" | grep -qx -- "$n" && ! printf '%s\n' "${done_parts[@]:-}" | grep -q "/$study\.$n\."; then
      k=$(field "$(line_of "$n")" 6 | awk -F';' '{print NF}')
      if [ "${k:-0}" -gt 1 ]; then
        for i in $(seq 1 "$k"); do done_parts+=("$parts/$study.$n.$i.csv"); done
      else
        done_parts+=("$parts/$study.$n.csv")
      fi
    fi
  done <<< "$PLAN"
  [ ${#done_parts[@]} = 0 ] && continue
  [ "$dry" = 1 ] || mkdir -p "$(dirname "$out/$dest")"
  run_cmd "$tools/pkbench_merge" "$out/$dest" "${done_parts[@]}" || status=1
done
# The tuning tables of every measured study, one pkbench_tuning.h: the command kept in
# tuning/command.txt, which scripts/regenerate.sh runs with the summaries, the cost model on
# each fused CSV, the figures and the report.
tune_src=()
for s in $(pk_studies_with tuned); do have "$out/$s/$s.csv" && tune_src+=("$out/$s/$s.csv"); done
if [ ${#tune_src[@]} -gt 0 ]; then
  line="build/bin/pkbench_tune --out $out/tuning ${tune_src[*]}"
  echo "  tuning/command.txt: $line"
  [ "$dry" = 1 ] || { mkdir -p "$out/tuning"
    printf '# Run from the repository root on the CPU (scripts/regenerate.sh runs these lines).\n%s\n' "$line" > "$out/tuning/command.txt"; }
fi
run_cmd "$PKBENCH_ROOT/scripts/regenerate.sh" "$out" || status=1
pk_log "done: ${#todo[@]} steps run or already finished, $refused refused, $(( $(date +%s) - start ))s"
exit "$status"
