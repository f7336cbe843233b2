#!/usr/bin/env bash
# The collective study's NCCL baselines checked against nccl-tests' own binaries in one
# invocation: the study (NCCL rows only) and all_reduce_perf & co. on the same sizes, dtype,
# GPUs and launch modes (eager; -G 1 for graph), then pkbench_coll_ref merges the tools'
# figures into the rows (ref_tool, ref_time_us, ref_ratio = time_us_nccltests / the tool's)
# and prints the ratio per row. The study runs with --nccltests-shift: its NCCL rows move
# their buffers every iteration as nccl-tests does, so the two read memory alike.
#   microbench/collectives/ref_check.sh OUT_DIR [extra pkbench_collectives flags]
# Environment (defaults in brackets):
#   PKBENCH_NCCL_TESTS  folder holding the *_perf binaries [found on PATH]
#                       (scripts/build-ref-tools.sh builds them into .reftools/nccl-tests)
#   BUILD     pkbench's build folder [build]; BIN, REF override the two binaries
#   NP        processes: unset or 1 = one process driving NGPUS GPUs (-g NGPUS); N >= 2 =
#             mpirun -np N, one GPU each (nccl-tests built with MPI=1)
#   NGPUS     GPUs of a one-process run [every GPU nvidia-smi lists]
#   COLLS     [all_reduce] (all_reduce, all_gather, reduce_scatter, all_to_all)
#   DTYPE     [bf16] (bf16, fp32)     SIZES [4K:1G] (MIN:MAX, doubling, as -b MIN -e MAX -f 2)
#   MODES     [eager,graph]           ITERS [20] (nccl-tests' -n and --nccltests-iters)
#   GRAPH_LAUNCHES [1] nccl-tests' -G N for graph mode, and the study's --nccltests-graph-launches
#   REPEATS   [5] rounds of (the study, then each tool invocation); both sides' figure is
#             the median of their rounds: a launch-bound size moves by 10 % and more between
#             two runs of nccl-tests itself
#   CONFIGS   [default,symmetric] any of default, symmetric, PROTO/ALGO (LL/Ring, ...):
#             symmetric runs the tool with -R 2, PROTO/ALGO with NCCL_PROTO / NCCL_ALGO set
# Exit: the study's or a tool's failure, else pkbench_coll_ref's (1: no row matched).
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${1:?usage: ref_check.sh OUT_DIR [pkbench_collectives flags]}
shift
mkdir -p "$O"
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/bin/pkbench_collectives}
REF=${REF:-$BUILD/bin/pkbench_coll_ref}
NP=${NP:-1}
COLLS=${COLLS:-all_reduce}
DTYPE=${DTYPE:-bf16}
SIZES=${SIZES:-4K:1G}
MODES=${MODES:-eager,graph}
ITERS=${ITERS:-20}
REPEATS=${REPEATS:-5}
GRAPH_LAUNCHES=${GRAPH_LAUNCHES:-1}
CONFIGS=${CONFIGS:-default,symmetric}
MIN=${SIZES%%:*}
MAX=${SIZES#*:}
case $DTYPE in bf16) NT_TYPE=bfloat16 ;; fp32) NT_TYPE=float ;; *) echo "DTYPE=$DTYPE: bf16 or fp32" >&2; exit 2 ;; esac
[[ $SIZES == *:* && $MAX != *:* ]] || { echo "SIZES=$SIZES: MIN:MAX" >&2; exit 2; }
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS=$REPEATS: a positive integer" >&2; exit 2; }
[[ $GRAPH_LAUNCHES =~ ^[1-9][0-9]*$ ]] || { echo "GRAPH_LAUNCHES=$GRAPH_LAUNCHES: a positive integer" >&2; exit 2; }

tool_path() {  # $1: the nccl-tests program
  if [ -n "${PKBENCH_NCCL_TESTS:-}" ]; then
    [ -x "$PKBENCH_NCCL_TESTS/$1" ] || { echo "PKBENCH_NCCL_TESTS=$PKBENCH_NCCL_TESTS has no $1" >&2; return 2; }
    echo "$PKBENCH_NCCL_TESTS/$1"
  else
    command -v "$1" || { echo "$1: not on PATH and PKBENCH_NCCL_TESTS unset" >&2; return 2; }
  fi
}
# What to run, from the study's own declaration of the configurations (pkbench_coll_ref --plan:
# names, which collective NCCL takes each for, its environment and tool flags): no second list here.
PLAN=$("$REF" --plan "$COLLS" "$CONFIGS") || exit 2
IMPLS=$(awk '{print $3}' <<< "$PLAN" | sort -u | paste -sd, -)
if [ "$NP" -ge 2 ]; then
  LAUNCH=(mpirun -np "$NP" --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0 -x NVSHMEM_DISABLE_NVLS=1
          -x TORCH_SYMM_MEM_DISABLE_MULTICAST=1)
  G=1
else
  LAUNCH=()
  G=${NGPUS:-$(nvidia-smi -L | wc -l)}
fi
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1

# REPEATS rounds, each the study then every tool invocation, so that both sides sample the
# machine's drift alike (a figure of a launch-bound size moves by 10-50 % between runs
# minutes apart on a one-GPU machine); each side's figure is the median of its rounds.
STUDY=() MERGE=()
for ((r = 1; r <= REPEATS; r++)); do
  echo "== round $r/$REPEATS: pkbench_collectives: $COLLS $DTYPE $SIZES $MODES, $CONFIGS"
  "${LAUNCH[@]}" "$BIN" --collectives="$COLLS" --dtypes="$DTYPE" --sizes="$SIZES" --modes="$MODES" --impls="$IMPLS" \
    --nccl-configs="$CONFIGS" --nccltests-iters="$ITERS" --nccltests-graph-launches="$GRAPH_LAUNCHES" --nccltests-shift --csv="$O/study_r$r.csv" "$@" \
    > "$O/study_r$r.log" 2>&1
  rc=$?
  [ $rc = 0 ] || { echo "pkbench_collectives failed (rc=$rc):" >&2; tail -20 "$O/study_r$r.log" >&2; exit $rc; }
  STUDY+=(--csv="$O/study_r$r.csv")
  while read -r coll c impl prog envs targs; do
    exe=$(tool_path "$prog") || exit 2
    env=() extra=()
    [ "$envs" = - ] || IFS=, read -r -a env <<< "$envs"
    [ "$targs" = - ] || IFS=, read -r -a extra <<< "$targs"
    for m in ${MODES//,/ }; do
      args=(-b "$MIN" -e "$MAX" -f 2 -d "$NT_TYPE" -n "$ITERS" -w 1 -g "$G" "${extra[@]}")
      [ "$m" = graph ] && args+=(-G "$GRAPH_LAUNCHES")
      f="$O/nccltests_${coll}_${impl}_${m}_r$r.txt"
      echo "== round $r/$REPEATS: ${env[*]} $prog ${args[*]}"
      if [ "$NP" -ge 2 ]; then
        xenv=()
        for e in "${env[@]}"; do xenv+=(-x "$e"); done
        "${LAUNCH[@]}" "${xenv[@]}" "$exe" "${args[@]}" > "$f" 2>&1
      else
        env "${env[@]}" "$exe" "${args[@]}" > "$f" 2>&1
      fi
      rc=$?
      [ $rc = 0 ] || { echo "$prog failed (rc=$rc):" >&2; tail -20 "$f" >&2; exit $rc; }
      MERGE+=(--nccl-tests="$c:$f")  # the configuration's name is its nccl_config; its rounds' median
    done
  done <<< "$PLAN"
done

echo "== ratios (time_us_nccltests / nccl-tests' out-of-place time)"
"$REF" "${STUDY[@]}" --out="$O/collectives_ref.csv" "${MERGE[@]}" | tee "$O/ratios.txt"
rc=${PIPESTATUS[0]}
# The cross-check status of every point (within 5 % or off by x %) is the sweeps' rule
# (verdict.h), printed by the collectives summary: no second rule here.
SUMMARY=${SUMMARY:-$BUILD/bin/pkbench_collectives_summary}
"$SUMMARY" "$O/collectives_ref.csv" | sed -n '/^## NCCL against its own tool/,/^## Every point/p' | sed '$d' |
  tee -a "$O/ratios.txt"
exit $rc
