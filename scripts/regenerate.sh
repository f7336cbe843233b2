#!/usr/bin/env bash
# Everything a results folder derives from its CSVs, by the layout's fixed names: each study's
# summaries, in the order of microbench/studies.list (its microbench/<study>/study.sh's
# pk_<study>_regenerate: the transfer summaries, tuning CSVs and peer modes side by side, the
# sync summary, the primitives summary, the collectives verdicts, the fused cost model, ...),
# the tuning tables (tuning/command.txt, run from the repository root), the figures
# (scripts/plot.sh) and REPORT.md (scripts/report.sh).
# scripts/run.sh calls it after measuring; the regeneration test calls it on a copy of each
# committed machine folder and compares the results byte for byte.
#   scripts/regenerate.sh RESULTS_DIR [--no-figures]
# Run from the repository root (or a copy of it): the tools record the paths they are given.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dir="" figures=1
for a in "$@"; do
  case "$a" in
    --no-figures) figures=0 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "regenerate.sh: error: unknown option '$a'" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "regenerate.sh: error: one RESULTS_DIR (got '$dir' and '$a')" >&2; exit 2; }; dir=$a ;;
  esac
done
[ -n "$dir" ] || { echo "usage: scripts/regenerate.sh RESULTS_DIR [--no-figures]" >&2; exit 2; }
[ -d "$dir" ] || { echo "regenerate.sh: error: no such folder: $dir" >&2; exit 2; }
dir=${dir%/}
tools=$(pk_bin_dir)
# The tools every folder needs, built where one is missing: the studies' (their study.sh's
# pk_<study>_regenerate_tools) and the sweeps' (pkbench_tune_loo only built: tuning/command.txt's).
mapfile -t needed < <(for s in "${PK_STUDIES[@]}"; do pk_study_call "$s" regenerate_tools; done)
needed+=(pkbench_tune pkbench_peer_modes pkbench_report)
for t in "${needed[@]}"; do
  [ -x "$tools/$t" ] || pk_build "${needed[@]}" pkbench_tune_loo ||
    { echo "regenerate.sh: could not build the sweep tools" >&2; exit 1; }
done
status=0

# Each study's own summaries, in the list's order: its study.sh's pk_<study>_regenerate DIR
# TOOLS (non-zero: a step failed; the others still run).
for s in "${PK_STUDIES[@]}"; do
  pk_study_call "$s" regenerate "$dir" "$tools" || status=1
done
# tuning/command.txt: the pkbench_tune (and pkbench_tune_loo) lines that wrote tuning/, with
# build/bin/ (build/sweeps/ in the records written before the binaries moved there) standing
# for this build's tools.
if [ -f "$dir/tuning/command.txt" ]; then
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    read -ra cmd <<< "$line"
    case "${cmd[0]}" in
      build/bin/pkbench_tune|build/bin/pkbench_tune_loo|build/sweeps/pkbench_tune|build/sweeps/pkbench_tune_loo)
        cmd[0]=$tools/${cmd[0]##*/} ;;
      *) echo "regenerate.sh: $dir/tuning/command.txt: '${cmd[0]}' is not a tuning tool; not run" >&2; status=1; continue ;;
    esac
    "${cmd[@]}" > /dev/null || status=1
  done < "$dir/tuning/command.txt"
fi
if [ "$figures" = 1 ]; then
  if command -v gnuplot >/dev/null 2>&1; then
    "$PKBENCH_ROOT/scripts/plot.sh" "$dir" 2> /dev/null || pk_log "no figures drawn for $dir"
  else
    pk_log "gnuplot is not installed here: figures not drawn (apt install gnuplot-nox)"
  fi
fi
"$PKBENCH_ROOT/scripts/report.sh" "$dir" > /dev/null || status=1
exit "$status"
