#!/usr/bin/env bash
# Redraw every figure of a results folder from its CSVs (PNG and SVG beside them).
#   scripts/plot.sh results/h200x2
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dir=${1:?usage: scripts/plot.sh RESULTS_DIR}
[ -d "$dir" ] || { echo "plot.sh: no such folder: $dir" >&2; exit 2; }
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot is not installed here; install it (apt install gnuplot-nox) to draw figures" >&2
  exit 3
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gp="$PKBENCH_ROOT/scripts/plots"

# Splits a tidy CSV into one whitespace-separated file per curve:
#   split CSV FILTER KEYS VALUES  ->  $tmp/<key values joined by _>.dat
# FILTER is an awk condition over c["col"] lookups, e.g. v("sweep")=="fig2".
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

drew=0
if [ -f "$dir/transfer.csv" ]; then
  split_csv "$dir/transfer.csv" 'v("sweep")=="fig2"' "sweep mechanism direction pattern" "message_bytes pct_of_line_rate gbps"
  split_csv "$dir/transfer.csv" 'v("sweep")=="fig3"' "sweep mechanism direction message_bytes" "sms gbps pct_of_line_rate"
  for f in "$tmp"/*.dat; do [ -f "$f" ] && sort -g -k1,1 -o "$f" "$f"; done
  # Curves absent from this CSV (a subset run) plot as nothing rather than failing.
  for m in ce tma_bulk tma_tile reg reg_l2hint; do for d in push pull; do
    for p in one_way bidir; do [ -f "$tmp/fig2_${m}_${d}_${p}.dat" ] || echo "NaN NaN NaN" > "$tmp/fig2_${m}_${d}_${p}.dat"; done
    for s in 2048 16384 65536; do [ -f "$tmp/fig3_${m}_${d}_${s}.dat" ] || echo "NaN NaN NaN" > "$tmp/fig3_${m}_${d}_${s}.dat"; done
  done; done
  ce_best() {  # the copy engine's best one-way GB/s in direction $1 (the reference line of fig3)
    awk -F, -v d="$1" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["status"]=="ok" && $c["mechanism"]=="ce" &&
      $c["direction"]==d && $c["pattern"]=="one_way" && $c["gbps"]>m {m=$c["gbps"]} END{print m+0}' "$dir/transfer.csv"
  }
  ce_push=$(ce_best push)
  ce_pull=$(ce_best pull)
  gpu=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} {print $c["gpu_name"] " x" $c["gpu_count"]; exit}' "$dir/transfer.csv")
  for term in png svg; do
    gnuplot -e "data='$tmp'; out='$dir/fig2_bandwidth_vs_message.$term'; term='$term'; gpu='$gpu'" "$gp/fig2.gp"
    gnuplot -e "data='$tmp'; out='$dir/fig3_bandwidth_vs_sms.$term'; term='$term'; gpu='$gpu'; ce_push=$ce_push; ce_pull=$ce_pull" "$gp/fig3.gp"
  done
  drew=1
fi
if [ -f "$dir/sync.csv" ]; then
  awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}
    $c["status"]=="ok" && $c["level"]!="clock" && $c["one_way_ns"]!="" && $c["gbps"]=="" {
      label=$c["level"] "/" $c["primitive"] " " $c["scope"] " " $c["semantics"] " " $c["placement"] " x" $c["participants"]
      gsub(/ +/, " ", label); gsub(/ /, "_", label)
      lo = hi = $c["one_way_ns"]
      # p10/p90 describe what was timed (round trips for ping-pongs): scale them like the median.
      if ($c["p10_ns"] != "") { s = $c["round_trip_ns"] != "" ? 0.5 : 1; lo = $c["p10_ns"] * s; hi = $c["p90_ns"] * s }
      print NR-1, $c["one_way_ns"], lo, hi, label }' "$dir/sync.csv" > "$tmp/sync.dat"
  gpu=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} {print $c["gpu_name"] " x" $c["gpu_count"]; exit}' "$dir/sync.csv")
  if [ -s "$tmp/sync.dat" ]; then
    for term in png svg; do
      gnuplot -e "data='$tmp/sync.dat'; out='$dir/sync_latency.$term'; term='$term'; gpu='$gpu'" "$gp/sync.gp"
    done
    drew=1
  fi
fi
[ "$drew" = 1 ] || { echo "plot.sh: no CSV with a figure in $dir" >&2; exit 1; }
ls "$dir"/*.png 2>/dev/null | sed 's/^/plot.sh: wrote /' >&2
