#!/usr/bin/env bash
# Reproduce the paper's figures and tables that this machine allows, one step at a time,
# into results/<machine>/ (or $PKBENCH_OUT), then the summaries, tuning tables, figures and
# REPORT.md from everything measured so far.
#   scripts/reproduce.sh --list [--gpus=N]        # the plan: steps, estimated minutes, device calls
#   scripts/reproduce.sh fig2 fig3                # those steps (a finished step is not rerun)
#   scripts/reproduce.sh all                      # every step the hardware allows
#   scripts/reproduce.sh --dry-run --gpus=2 all   # print the commands, run nothing
# Options: --force (rerun finished steps), --gpus=N (plan for N GPUs; a real run refuses more
# than are present), --timeout=S (per step, default 540).
# A step writes results/<machine>/parts/<study>.<step>.csv and a .done marker when its study
# exited 0; a later call (another device call) skips it and merges every finished part into
# the study's CSV. Steps that cannot run here are named with the reason and skipped:
# multicast (never run on shared machines), more GPUs than present, a study not built yet.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

# ---- The plan, declared once: one line per step -------------------------------------------
#   name | paper item | study | GPUs needed | est. seconds on H200x2 | study flags | needs
# Estimates: the committed H200x2 runs (results/h200x2/peer-modes/single: 1025 transfer points
# in 111 s, 0.11 s a point; collectives_mpi.csv: 350 points); fused: not written yet.
PLAN=$(cat <<'EOF'
fig2|Figure 2: bandwidth vs message size, every mechanism, push/pull, one-way/bidir|transfer|2|50|--preset=fig2|
fig3|Figure 3: bandwidth vs SMs at 2/16/64 KiB|transfer|2|40|--preset=fig3|
table1|Table 1: per-mechanism peak, smallest message and fewest SMs (knob grid, mixed, local ceiling)|transfer|2|40|--preset=tune;--preset=mixed;--preset=local|
sync|Sync numbers of Section 3.1.3 (64 ns mbarrier, 832 ns inter-SM) and cross-GPU signals|sync|1|30||
scale|Fan-out / fan-in / all-pairs over 2, 4 and 8 GPUs (points above the GPU count are skipped)|transfer|2|20|--preset=scale|
fig6|Figure 6: BF16 all-reduce against NCCL|collectives|2|120|--collectives=all_reduce --dtypes=bf16|mpi
fig15|Figure 15: tensor-dimension all-gather against NCCL + reshape|collectives|2|40|--collectives=all_gather_cols --dtypes=bf16|mpi
fig16|Figure 16: tensor-dimension reduce-scatter against NCCL + reshape|collectives|2|40|--collectives=reduce_scatter_cols --dtypes=bf16|mpi
fig17|Figure 17: 4-D (B, S, H, D) all-to-all against NCCL + reshape|collectives|2|40|--collectives=all_to_all_4d --dtypes=bf16|mpi
fig6nvls|Figure 6's NVSwitch in-network (multicast) all-reduce|collectives|2|0||multicast
fig4|Figure 4: GEMM+RS intra-SM vs inter-SM overlap|fused|2|0||pending
fig5|Figure 5: inter-SM SM split for AG+GEMM|fused|2|0||pending
fig7|Figure 7: AG+GEMM against baselines|fused|2|0||pending
fig8|Figure 8: GEMM+RS against baselines|fused|2|0||pending
fig9|Figure 9: GEMM+AR against baselines|fused|2|0||pending
table3|Table 3: GEMM vs GEMM+RS over K (communication hidden from K >= sR/2B)|fused|2|0||pending
paper8|The paper's 8-GPU numbers (every figure at 8 GPUs)|transfer|8|0|--preset=scale --gpu-counts=8|
EOF
)
BUILD_S=60          # configure + build of the study binaries on a GPU machine (README: 12-19 s on 32 cores)
CALL_S=540          # one device call: under 10 minutes with room for packing results

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  echo "steps: $(printf '%s\n' "$PLAN" | cut -d'|' -f1 | tr '\n' ' ')all"
}

list=0 dry=0 force=0 gpus="" step_timeout=540
names=()
for a in "$@"; do
  case "$a" in
    --list) list=1 ;;
    --dry-run) dry=1 ;;
    --force) force=1 ;;
    --gpus=*) gpus=${a#--gpus=}; [[ "$gpus" =~ ^[0-9]+$ ]] || { echo "reproduce.sh: error: $a: not a GPU count" >&2; exit 2; } ;;
    --timeout=*) step_timeout=${a#--timeout=}; [[ "$step_timeout" =~ ^[1-9][0-9]*$ ]] || { echo "reproduce.sh: error: $a: not a number of seconds" >&2; exit 2; } ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "reproduce.sh: error: unknown option '$a'" >&2; usage >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done
all_names=$(printf '%s\n' "$PLAN" | cut -d'|' -f1)
for n in "${names[@]}"; do
  [ "$n" = all ] && continue
  printf '%s\n' "$all_names" | grep -qx -- "$n" || { echo "reproduce.sh: error: unknown step '$n' (steps: $(echo $all_names) all)" >&2; exit 2; }
done
if [ "$list" = 0 ] && [ ${#names[@]} = 0 ]; then usage >&2; exit 2; fi
[ ${#names[@]} = 0 ] && names=(all)
printf '%s\n' "${names[@]}" | grep -qx all && names=($all_names)

present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
present=${present:-0}
if [ -n "$gpus" ] && [ "$dry" = 0 ] && [ "$list" = 0 ] && [ "$gpus" -gt "$present" ]; then
  echo "reproduce.sh: error: --gpus=$gpus but this machine has $present GPU(s); --gpus above that is for --list and --dry-run" >&2
  exit 2
fi
ngpus=${gpus:-$present}

# Why a step cannot run here ("" if it can): the order of the checks is the order of the reasons.
refusal() {  # step line
  local study need needs
  IFS='|' read -r _ _ study need _ _ needs <<< "$1"
  if [ "$needs" = multicast ]; then
    echo "NVSwitch multicast is never run on shared machines (it can put a host's GPUs out of service; see DESIGN.md)"
    return
  fi
  if [ ! -f "$PKBENCH_ROOT/microbench/$study/CMakeLists.txt" ] && [ ! -f "$PKBENCH_ROOT/microbench/$study/${study}_bench.cu" ]; then
    echo "the $study study is not built yet (microbench/$study has no binary)"
    return
  fi
  if [ "$needs" = pending ]; then
    echo "the $study study has no reproduce command yet (declare its flags on this step's line in scripts/reproduce.sh)"
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

line_of() { printf '%s\n' "$PLAN" | awk -F'|' -v n="$1" '$1 == n'; }

# ---- --list: the plan, grouped into device calls ---------------------------------------------
if [ "$list" = 1 ]; then
  echo "plan for $ngpus GPU(s) (estimates on H200x2; one device call = at most ${CALL_S} s here):"
  printf '  %-9s %-11s %6s  %s\n' step study est. "what (or why not)"
  runnable=()
  for n in "${names[@]}"; do
    l=$(line_of "$n")
    IFS='|' read -r _ what study _ est _ _ <<< "$l"
    why=$(refusal "$l")
    if [ -z "$why" ]; then
      printf '  %-9s %-11s %5ss  %s\n' "$n" "$study" "$est" "$what"
      runnable+=("$n:$est")
    else
      printf '  %-9s %-11s %6s  cannot: %s (%s)\n' "$n" "$study" "-" "$why" "$what"
    fi
  done
  # Greedy packing in plan order; the first call also builds.
  call=1 used=$BUILD_S steps="" total=0
  for r in "${runnable[@]}"; do
    n=${r%%:*} s=${r##*:}
    total=$((total + s))
    if [ -n "$steps" ] && [ $((used + s)) -gt "$CALL_S" ]; then
      echo "  device call $call (~$(( (used + 59) / 60 )) min): scripts/reproduce.sh$steps"
      call=$((call + 1)) used=$BUILD_S steps=""
    fi
    used=$((used + s)) steps="$steps $n"
  done
  [ -n "$steps" ] && echo "  device call $call (~$(( (used + 59) / 60 )) min): scripts/reproduce.sh$steps"
  echo "  total: ${#runnable[@]} steps, ~$(( (total + BUILD_S + 59) / 60 )) min of GPU time with one build"
  exit 0
fi

# ---- run ------------------------------------------------------------------------------------
if [ "$dry" = 0 ] && [ "$present" = 0 ]; then
  echo "reproduce.sh: no NVIDIA GPU on this machine, nothing to measure (--list and --dry-run plan without one)" >&2
  exit 3
fi
machine=$(pk_machine_name 2>/dev/null || echo "dry-run")
out=${PKBENCH_OUT:-$PKBENCH_ROOT/results/$machine}
parts=$out/parts
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
export CUDA_MODULE_LOADING=EAGER
run_cmd() {  # prints, then runs unless --dry-run
  printf '  $'; printf ' %q' "$@"; printf '\n'
  [ "$dry" = 1 ] || "$@"
}

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

studies=$(for n in "${todo[@]}"; do line_of "$n" | cut -d'|' -f3; done | sort -u)
targets=()
for s in $studies; do targets+=("pkbench_$s"); done
targets+=(pkbench_merge pkbench_transfer_summary pkbench_sync_summary pkbench_tune pkbench_report)
pk_log "machine $machine ($ngpus GPUs), commit $PKBENCH_GIT_COMMIT, results in $out"
if [ "$dry" = 0 ]; then
  mkdir -p "$parts"
  pk_ensure_deps build || exit 1
  pk_build_targets "${targets[@]}" || { pk_log "build failed"; exit 1; }
else
  echo "would build: ${targets[*]}"
fi

start=$(date +%s) done_n=0 status=0
for n in "${todo[@]}"; do
  IFS='|' read -r _ what study need est flags needs <<< "$(line_of "$n")"
  bin=$PKBENCH_BUILD_DIR/microbench/pkbench_$study
  if [ "$dry" = 0 ] && [ ! -x "$bin" ]; then
    pk_log "$n: cannot run here: pkbench_$study was not built (see the CMake output: a dependency is missing)"
    refused=$((refused + 1))
    continue
  fi
  mode=single
  [ "$needs" = mpi ] && mode=ipc
  mapfile -t launcher < <(pk_launcher "$mode")
  [ "$mode" = ipc ] && flags="$flags --peer-mode=ipc"
  IFS=';' read -ra invocations <<< "$flags"
  k=0
  for inv in "${invocations[@]:-}"; do
    k=$((k + 1))
    part=$parts/$study.$n.csv
    [ "${#invocations[@]}" -gt 1 ] && part=$parts/$study.$n.$k.csv
    if [ -f "$part.done" ] && [ "$force" = 0 ]; then
      pk_log "$n: $(basename "$part") finished in an earlier call, not rerun (--force reruns)"
      continue
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
tools=$PKBENCH_BUILD_DIR/sweeps
for study in transfer sync collectives; do
  done_parts=()
  for p in "$parts/$study".*.csv; do [ -f "$p.done" ] && done_parts+=("$p"); done
  [ "$dry" = 1 ] && [ ${#done_parts[@]} = 0 ] && continue
  [ ${#done_parts[@]} = 0 ] && continue
  dest=$out/$study.csv
  [ "$study" = collectives ] && dest=$out/collectives/collectives.csv
  run_cmd "$tools/pkbench_merge" "$dest" "${done_parts[@]}" || status=1
done
if [ -f "$out/transfer.csv" ] || [ "$dry" = 1 ]; then
  run_cmd "$tools/pkbench_transfer_summary" "$out/transfer.csv" "$out" || status=1
fi
if [ -f "$out/sync.csv" ]; then run_cmd "$tools/pkbench_sync_summary" "$out/sync.csv" "$out" || status=1; fi
if [ -f "$out/transfer.csv" ] || [ -f "$out/collectives/collectives.csv" ]; then
  run_cmd "$tools/pkbench_tune" "$out" $( [ -f "$out/collectives/collectives.csv" ] && echo "$out/collectives/collectives.csv") --out "$out" || status=1
fi
if command -v gnuplot >/dev/null 2>&1; then
  run_cmd "$PKBENCH_ROOT/scripts/plot.sh" "$out" || pk_log "figures not drawn"
  if [ -f "$out/collectives/collectives.csv" ] && [ -x "$PKBENCH_ROOT/microbench/collectives/plot.sh" ]; then
    run_cmd "$PKBENCH_ROOT/microbench/collectives/plot.sh" "$out/collectives/collectives.csv" "$out/collectives" || true
  fi
else
  pk_log "gnuplot is not installed here: figures not drawn (scripts/plot.sh $out on a machine with gnuplot)"
fi
run_cmd "$PKBENCH_ROOT/scripts/report.sh" "$out" || status=1
pk_log "done: ${#todo[@]} steps run or already finished, $refused refused, $(( $(date +%s) - start ))s"
exit "$status"
