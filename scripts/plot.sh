#!/usr/bin/env bash
# Redraw every figure of a results folder from its CSVs (PNG and SVG beside them, in each
# study's folder: transfer/, sync/, collectives/, fused/).
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
gp="$PKBENCH_ROOT/scripts/plots"

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

# Figures 2 and 3 of one transfer CSV, beside it.
draw_transfer() {
  local csv=$1 out tmp d p s term
  out=$(dirname "$csv")
  tmp=$(mktemp -d -p "$work")
  # NVLink figures: the local pattern (a GPU's own memory: one-GPU machines) has no line rate
  # to be a percentage of, and is left out.
  split_csv "$csv" 'v("sweep")=="fig2" && v("pattern")!="local"' "sweep mechanism direction pattern" "message_bytes pct_of_line_rate gbps"
  split_csv "$csv" 'v("sweep")=="fig3" && v("pattern")!="local"' "sweep mechanism direction message_bytes" "sms gbps pct_of_line_rate"
  for f in "$tmp"/*.dat; do [ -f "$f" ] && sort -g -k1,1 -o "$f" "$f"; done
  mechs=$(distinct "$csv" 'v("pattern")!="local"' mechanism)
  style=$(styles "$mechs")
  line_rate=$(first "$csv" line_rate_gbps)
  ce_best() {  # direction -> the copy engine's best one-way GB/s (0 if not measured)
    awk -F, -v d="$1" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["status"]=="ok" && $c["mechanism"]=="ce" &&
      $c["direction"]==d && $c["pattern"]=="one_way" && $c["gbps"]>m {m=$c["gbps"]} END{print m+0}' "$csv"
  }
  # Per panel, the mechanisms that have a curve there.
  vars="data='$tmp'; gpu='$(title_of "$csv")'; line_rate=${line_rate:-0}; $style"
  f2dirs=$(distinct "$csv" 'v("sweep")=="fig2" && v("pattern")!="local"' direction)
  f2pats=$(distinct "$csv" 'v("sweep")=="fig2" && v("pattern")!="local"' pattern)
  f3dirs=$(distinct "$csv" 'v("sweep")=="fig3" && v("pattern")!="local"' direction)
  f3sizes=$(distinct "$csv" 'v("sweep")=="fig3" && v("pattern")!="local"' message_bytes | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')
  for d in $(distinct "$csv" 'v("pattern")!="local"' direction); do
    vars="$vars ce_$d=$(ce_best "$d");"
    for p in $f2pats; do
      vars="$vars m2_${d}_$p='$(distinct "$csv" "v(\"sweep\")==\"fig2\" && v(\"direction\")==\"$d\" && v(\"pattern\")==\"$p\"" mechanism)';"
    done
    for s in $f3sizes; do
      vars="$vars m3_${d}_$s='$(distinct "$csv" "v(\"sweep\")==\"fig3\" && v(\"pattern\")!=\"local\" && v(\"direction\")==\"$d\" && v(\"message_bytes\")==\"$s\"" mechanism)';"
    done
  done
  for term in png svg; do
    if [ -n "$f2dirs" ]; then
      gnuplot -e "$vars out='$out/fig2_bandwidth_vs_message.$term'; term='$term'; dirs='$f2dirs'; pats='$f2pats'" "$gp/fig2.gp"
      drew=1
    fi
    if [ -n "$f3dirs" ]; then
      gnuplot -e "$vars out='$out/fig3_bandwidth_vs_sms.$term'; term='$term'; dirs='$f3dirs'; sizes='$f3sizes'" "$gp/fig3.gp"
      drew=1
    fi
  done
}
# The latency of every primitive of one sync CSV, beside it.
draw_sync() {
  local csv=$1 tmp term
  tmp=$(mktemp -d -p "$work")
  awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}
    $c["status"]=="ok" && $c["level"]!="clock" && $c["one_way_ns"]!="" && $c["gbps"]=="" {
      label=$c["level"] "/" $c["primitive"] " " $c["scope"] " " $c["semantics"] " " $c["placement"] " x" $c["participants"]
      gsub(/ +/, " ", label); gsub(/ /, "_", label)
      lo = hi = $c["one_way_ns"]
      # p10/p90 describe what was timed (round trips for ping-pongs): scale them like the median.
      if ($c["p10_ns"] != "") { s = $c["round_trip_ns"] != "" ? 0.5 : 1; lo = $c["p10_ns"] * s; hi = $c["p90_ns"] * s }
      print NR-1, $c["one_way_ns"], lo, hi, label }' "$csv" > "$tmp/sync.dat"
  if [ -s "$tmp/sync.dat" ]; then
    for term in png svg; do
      gnuplot -e "data='$tmp/sync.dat'; out='$(dirname "$csv")/sync_latency.$term'; term='$term'; gpu='$(title_of "$csv")'" "$gp/sync.gp"
    done
    drew=1
  fi
}

drew=0
# Every transfer CSV of the study (its runs under scale/, peer-modes/<mode>/ too) and every
# sync CSV (the study's and each peer mode's).
if [ -d "$dir/transfer" ]; then
  while IFS= read -r csv; do draw_transfer "$csv"; done < <(find "$dir/transfer" -name transfer.csv | sort)
fi
[ -f "$dir/sync/sync.csv" ] && draw_sync "$dir/sync/sync.csv"
if [ -d "$dir/transfer/peer-modes" ]; then
  while IFS= read -r csv; do draw_sync "$csv"; done < <(find "$dir/transfer/peer-modes" -name sync.csv | sort)
fi
coll=$dir/collectives/collectives.csv
if [ -f "$coll" ]; then
  if "$PKBENCH_ROOT/microbench/collectives/plot.sh" "$coll" "$dir/collectives" >&2; then drew=1
  else echo "plot.sh: microbench/collectives/plot.sh $coll failed" >&2; fi
fi
if [ -f "$dir/seqpar/seqpar.csv" ] || compgen -G "$dir/seqpar/ulysses*.csv" >/dev/null; then
  if "$PKBENCH_ROOT/microbench/seqpar/plot.sh" "$dir/seqpar" >&2; then drew=1
  else echo "plot.sh: microbench/seqpar/plot.sh $dir/seqpar failed" >&2; fi
fi
if [ -f "$dir/fused/fused.csv" ]; then
  if "$PKBENCH_ROOT/microbench/fused/plot.sh" "$dir/fused" >&2; then drew=1
  else echo "plot.sh: microbench/fused/plot.sh $dir/fused failed" >&2; fi
fi
[ "$drew" = 1 ] || { echo "plot.sh: no CSV with a figure in $dir" >&2; exit 1; }
ls "$dir"/*/*.png 2>/dev/null | sed 's/^/plot.sh: wrote /' >&2
