#!/usr/bin/env bash
# Redraw every figure of a results folder from its CSVs (PNG and SVG beside them, in each
# study's folder: transfer/, sync/, collectives/, fused/; each study's pk_<study>_plot).
#   scripts/plot.sh results/h200x2
# What is drawn comes from the CSV itself: the mechanisms, directions, patterns and message
# sizes present (no typed lists), each mechanism with its own colour, dash and point in
# every figure, the NVLink line rate and the copy engine's best as reference lines, and the
# machine and commit in the titles. The studies with figure scripts of their own are drawn by
# them: collectives/ (microbench/collectives/plot.sh: Figures 6, 15-17), fused/
# (microbench/fused/plot.sh: Figures 4, 5, 7-9 and table3.md) and seqpar/
# (microbench/seqpar/plot.sh: the ring pass, its SM split, the Ulysses collectives).
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dir=${1:?usage: scripts/plot.sh RESULTS_DIR}
[ -d "$dir" ] || { echo "plot.sh: no such folder: $dir" >&2; exit 2; }
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot is not installed here; install it (apt install gnuplot-nox) to draw figures" >&2
  exit 3
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Splits a tidy CSV into one whitespace-separated file per curve:
#   split CSV FILTER KEYS VALUES  ->  $tmp/<key values joined by _>.dat
# FILTER is an awk condition over v("column") lookups, e.g. v("sweep")=="fig2".
split_csv() {
  awk -F, -v out="$tmp" -v keys="$3" -v vals="$4" '
    function v(name) { return $(c[name]) }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; nk = split(keys, K, " "); nv = split(vals, V, " "); next }
    v("status") == "ok" && ('"$2"') {
      f = out "/"; for (i = 1; i <= nk; i++) f = f (i > 1 ? "_" : "") v(K[i]); f = f ".dat"
      line = ""; for (i = 1; i <= nv; i++) line = line (i > 1 ? " " : "") (v(V[i]) == "" ? "NaN" : v(V[i]))
      print line >> f
    }' "$1"
}
# Distinct values of COLUMN over ok rows matching FILTER, in order of first appearance.
distinct() {  # CSV FILTER COLUMN
  awk -F, -v col="$3" 'function v(name) { return $(c[name]) }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    v("status") == "ok" && ('"$2"') && !seen[v(col)]++ { printf "%s%s", (n++ ? " " : ""), v(col) }' "$1"
}
# The first row's value of COLUMN.
first() { awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $(c[col]); exit }' "$1"; }

# One style per mechanism, in the order the CSV lists them (the study's registration order):
# colour-blind-safe colours, each with its own dash and point type.
palette=('#0072B2' '#D55E00' '#009E73' '#CC79A7' '#E69F00' '#56B4E9' '#7F3C8D' '#3C3C3C' '#B8860B' '#1B9E77')
styles() {  # mechanisms -> gnuplot -e assignments c_<m>, d_<m>, p_<m>
  local i=0 m
  for m in $1; do
    printf "c_%s='%s'; d_%s=%d; p_%s=%d; " "$m" "${palette[$((i % ${#palette[@]}))]}" "$m" $((i % 5 + 1)) "$m" $((i % 13 + 4))
    i=$((i + 1))
  done
}
title_of() {  # CSV -> "NVIDIA H200 x2, commit d12113004164"
  printf '%s x%s, commit %s' "$(first "$1" gpu_name)" "$(first "$1" gpu_count)" "$(first "$1" git_commit)"
}

drew=0
# Each study's figures, in the order of microbench/studies.list: its study.sh's pk_<study>_plot
# DIR (exit 0: it drew some; else it had none to draw, or its figure script failed and said so),
# with this file's helpers at hand (split_csv, distinct, first, styles, title_of; $work).
for s in "${PK_STUDIES[@]}"; do
  if pk_study_has "$s" plot && pk_study_call "$s" plot "$dir"; then drew=1; fi
done
[ "$drew" = 1 ] || { echo "plot.sh: no CSV with a figure in $dir" >&2; exit 1; }
ls "$dir"/*/*.png 2>/dev/null | sed 's/^/plot.sh: wrote /' >&2
