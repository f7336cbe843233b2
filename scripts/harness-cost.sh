#!/usr/bin/env bash
# A benchmark, not a test: what the harness costs per point, each point's wall time minus the
# time its timed samples measured (issue 30's targets: median <= 10 ms for collectives and
# fused, <= 5 ms for transfer). Runs each study on this machine's first GPU, the studies with
# ranks on N virtual ranks (green contexts: --peer-mode=virtual --ranks=N), each on the grid of
# the main job (scripts/run.sh: lib.sh's pk_main_flags) unless said below, then prints per CSV
# the median and p90 of harness_ms over the points of status ok, the median wall and timed ms,
# and the largest named parts (pkbench_report --harness-cost; microbench/harness/point_cost.h
# says what each study times and names every part).
#   scripts/harness-cost.sh [--ranks=N] [--studies=LIST] [--out=DIR] [--study-seconds=S] [--list] [-- FLAGS...]
#     --ranks=N          virtual ranks, 2..8 (default 4)
#     --studies=LIST     comma list (default: transfer,sync,primitives,collectives,fused,gemm,ep,seqpar)
#     --out=DIR          the CSVs (DIR/<study>.csv), logs and the table (DIR/harness_cost.md);
#                        default build/harness-cost; a study's earlier CSV there is replaced,
#                        and the table lists every CSV under DIR (an earlier run's other studies too)
#     --study-seconds=S  stop a study after S seconds (0: never; default 0): the points it
#                        finished are summarized, the study is named as cut off
#     --list             print each study's command and its binary's plan (points, estimate),
#                        run nothing (no GPU needed)
#     -- FLAGS...        appended to every study's command (e.g. -- --samples=5)
# The grids (one GPU; every study but gemm on N virtual ranks):
#   sync         --levels=cross_gpu (what the virtual ranks add; the other levels are one GPU's)
#   gemm         one GPU, the one-GPU profile's shapes (scripts/run.sh: 4096^3 and 8192^3)
#   ep           --preset=smoke (scripts/run.sh's one-GPU profile)
#   the others   the main job's grid (collectives, fused, seqpar: --preset=main; transfer,
#                primitives: their defaults)
# Exit: 0 every study ran, 1 a study failed or was cut off, 2 bad input, 3 no GPU (with
# --list: 2 or 0 only).
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -uo pipefail
source "$(dirname "$0")/lib.sh"
me=harness-cost.sh
refuse() { echo "$me: error: $*" >&2; exit 2; }

args="$*"
ranks=4 studies=$(IFS=,; echo "${PK_STUDIES[*]}") out=$PKBENCH_BUILD_DIR/harness-cost seconds=0 list=0 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks=*) ranks=${1#--ranks=} ;;
    --studies=*) studies=${1#--studies=} ;;
    --out=*) out=${1#--out=} ;;
    --study-seconds=*) seconds=${1#--study-seconds=} ;;
    --list) list=1 ;;
    --) shift; extra=("$@"); break ;;
    -*) refuse "unknown option '$1' (--help lists them)" ;;
    *) refuse "unexpected argument '$1' (studies go in --studies=LIST)" ;;
  esac
  shift
done
[[ "$ranks" =~ ^[2-8]$ ]] || refuse "--ranks=$ranks: virtual ranks are 2 to 8"
[[ "$seconds" =~ ^[0-9]+$ ]] || refuse "--study-seconds=$seconds: a whole number of seconds (0: no limit)"
[ -n "$out" ] || refuse "--out= names no folder"
[ -n "$studies" ] || refuse "--studies= names no study"
IFS=, read -r -a chosen <<< "$studies"
for s in "${chosen[@]}"; do
  pk_is_study "$s" || refuse "--studies: unknown study '$s' (studies: ${PK_STUDIES[*]})"
done
[ "$(printf '%s\n' "${chosen[@]}" | sort | uniq -d)" = "" ] || refuse "--studies=$studies: a study named twice"

# study_flags STUDY: the study's flags beyond --csv, one a line: its study.sh's
# pk_<study>_harness_cost_flags given the virtual ranks' flags, else those and its main flags.
study_flags() {
  local s=$1 virt=(--peer-mode=virtual "--ranks=$ranks")
  if pk_study_has "$s" harness_cost_flags; then
    pk_study_call "$s" harness_cost_flags "${virt[@]}"
  else
    printf '%s\n' "${virt[@]}"; pk_main_flags "$s" 2
  fi
}
# The studies measured on one GPU (their flags take no virtual ranks), comma-separated.
one_gpu_studies() {
  local s
  for s in "${PK_STUDIES[@]}"; do study_flags "$s" | grep -qx -- --peer-mode=virtual || echo "$s"; done | paste -sd, -
}

# study_cmd STUDY: the study's command (without --csv) into the array `cmd`.
study_cmd() {
  local flags=()
  mapfile -t flags < <(study_flags "$1")
  cmd=("$(pk_bin "$1")" "${flags[@]}" ${extra[@]+"${extra[@]}"})
}

# Every study's command, its flags checked by its binary's --list (exit 2 names a bad one)
# before anything runs.
for s in "${chosen[@]}"; do
  [ -x "$(pk_bin "$s")" ] || pk_build "pkbench_$s" >&2 || { echo "$me: pkbench_$s could not be built" >&2; exit 1; }
done
[ -x "$(pk_bin report)" ] || pk_build pkbench_report >&2 || { echo "$me: pkbench_report could not be built" >&2; exit 1; }
where=()
[ "$(pk_gpu_count)" -ge 1 ] || where=(--arch=sm_90a)
for s in "${chosen[@]}"; do
  study_cmd "$s"
  plan=$("${cmd[@]}" --list ${where[@]+"${where[@]}"} 2>&1 >/dev/null)
  rc=$?
  [ "$rc" = 2 ] && { printf '%s\n' "$plan" >&2; exit 2; }
  [ "$rc" = 0 ] || { printf '%s\n' "$plan" >&2; echo "$me: $s: its --list failed (exit $rc)" >&2; exit 1; }
  if [ "$list" = 1 ]; then
    echo "$s: ${cmd[*]} --csv=$out/$s.csv"
    echo "    $(grep -m1 ': plan: ' <<< "$plan" | sed 's/^[^:]*: //')"
  fi
done
[ "$list" = 1 ] && exit 0

if [ "$(pk_gpu_count)" -lt 1 ]; then
  echo "$me: no NVIDIA GPU on this machine (nvidia-smi lists none): nothing to measure (--list plans)" >&2
  exit 3
fi
mkdir -p "$out"
export CUDA_MODULE_LOADING=EAGER  # as scripts/run.sh
status=0 times=()
for s in "${chosen[@]}"; do
  rm -f "$out/$s.csv"
  study_cmd "$s"
  cmd+=("--csv=$out/$s.csv")
  pk_log "$s: ${cmd[*]}"
  t0=$(date +%s)
  limit=()
  [ "$seconds" -gt 0 ] && limit=(timeout "$seconds")
  ${limit[@]+"${limit[@]}"} "${cmd[@]}" > "$out/$s.log" 2>&1
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  case "$rc" in
    0) times+=("$s ${dt}s") ;;
    124) times+=("$s ${dt}s (cut off by --study-seconds=$seconds)"); status=1 ;;
    *) times+=("$s ${dt}s (exit $rc: $out/$s.log)"); status=1 ;;
  esac
  pk_log "${times[-1]}"
done
table=$("$(pk_bin report)" --harness-cost "$out") || status=1
{
  echo "# Harness cost per point"
  echo
  echo "Wall time minus timed samples, over the points of status ok: commit $(pk_git_commit)," \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1), $ranks virtual ranks" \
    "($(one_gpu_studies): one GPU); scripts/harness-cost.sh $args."
  echo
  printf '%s\n' "$table"
  echo
  echo "Wall time per study: ${times[*]}."
} | tee "$out/harness_cost.md"
exit "$status"
