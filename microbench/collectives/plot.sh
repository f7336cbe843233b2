#!/usr/bin/env bash
# plot.sh CSV OUT_DIR: the collective study's figures from its tidy CSV (gnuplot).
#   fig6_<coll>_<mode>.png  time and busbw vs size, ours vs every baseline (Figure 6 for
#                           all_reduce; the same view for the other collectives)
#   ablation_<mode>.png     Figure 6's design-overhead factors, time and busbw: two-shot push
#                           (a+c: one-way signals, direct writes), (b) two-way handshake,
#                           (d) staged through an NCCL-channel-like FIFO, (b)+(d); NCCL beside
#   ablation_cost_<mode>.png  each factor's cost: time(variant) / time(two_shot_push) vs size
#   tensor_<mode>.png       Figures 15-17: tensor-dimension collectives, ours vs NCCL+reshape
set -euo pipefail
csv=$1 out=$2
mkdir -p "$out"
command -v gnuplot >/dev/null || { echo "gnuplot not found: no figures" >&2; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Split into one file per (collective, dtype, mode, impl): bytes time busbw.
awk -F, -v d="$tmp" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
  $c["status"]=="ok" {f=d"/"$c["collective"]"__"$c["dtype"]"__"$c["launch_mode"]"__"$c["impl"]".dat";
    print $c["bytes"], $c["time_us_median"], $c["busbw_gbps"] >> f}' "$csv"
plot_group() {  # collective dtype mode title file [impl filter regex]
  local coll=$1 dt=$2 mode=$3 title=$4 png=$5 filter=${6:-.}
  local files=() f
  for f in "$tmp/${coll}__${dt}__${mode}__"*.dat; do
    [ -f "$f" ] || continue
    basename "$f" .dat | sed 's/.*__//' | grep -Eq "$filter" && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  {
    echo "set terminal pngcairo size 1400,520 font ',10'; set output '$png'"
    echo "set termoption noenhanced; set format x '%.0b%B'; set xtics rotate by -30"
    echo "set multiplot layout 1,2 title '$title'"
    echo "set logscale x 2; set logscale y; set grid; set key left top; set xlabel 'size (bytes)'"
    echo "set ylabel 'time (us)'"
    printf "plot "; for f in "${files[@]}"; do printf "'%s' u 1:2 w lp t '%s', " "$f" "$(basename "$f" .dat | sed 's/.*__//')"; done; echo
    echo "unset logscale y; set ylabel 'busbw (GB/s)'; set key left top"
    printf "plot "; for f in "${files[@]}"; do printf "'%s' u 1:3 w lp t '%s', " "$f" "$(basename "$f" .dat | sed 's/.*__//')"; done; echo
    echo "unset multiplot"
  } | sed 's/, $//' > "$tmp/p.gp"
  gnuplot "$tmp/p.gp"
}
for coll in all_reduce all_gather reduce_scatter all_to_all all_gather_cols reduce_scatter_cols all_to_all_4d; do
  for mode in eager graph; do
    plot_group "$coll" bf16 "$mode" "$coll bf16 ($mode)" "$out/fig6_${coll}_${mode}.png"
  done
done
plot_cost() {  # collective dtype mode title file base variant...: time(variant) / time(base) vs size
  local coll=$1 dt=$2 mode=$3 title=$4 png=$5 base=$tmp/${1}__${2}__${3}__${6}.dat v f plots=()
  shift 6
  [ -f "$base" ] || return 0
  for v in "$@"; do
    f=$tmp/${coll}__${dt}__${mode}__$v.dat
    [ -f "$f" ] || continue
    awk 'NR==FNR{t[$1]=$2; next} ($1 in t) && t[$1]>0 {print $1, $2/t[$1]}' "$base" "$f" | sort -n > "$f.ratio"
    [ -s "$f.ratio" ] && plots+=("'$f.ratio' u 1:2 w lp t '$v'")
  done
  [ ${#plots[@]} -gt 0 ] || return 0
  {
    echo "set terminal pngcairo size 900,520 font ',10'; set output '$png'; set title '$title'"
    echo "set termoption noenhanced; set format x '%.0b%B'; set xtics rotate by -30"
    echo "set logscale x 2; set logscale y 2; set grid; set key left top; set xlabel 'size (bytes)'"
    echo "set ylabel 'time / time(two_shot_push)'"
    echo "plot $(IFS=,; echo "${plots[*]}"), 1 w l lc 'black' dt 2 t 'two_shot_push'"
  } > "$tmp/c.gp"
  gnuplot "$tmp/c.gp"
}
ablation='two_shot_push_handshake two_shot_push_staged two_shot_push_handshake_staged'
for mode in eager graph; do
  plot_group all_reduce bf16 "$mode" "all-reduce design overheads ($mode): (a+c) two_shot_push, (b) handshake, (d) staged" \
    "$out/ablation_${mode}.png" "^(two_shot_push|${ablation// /|}|nccl|nccl_sym)\$"
  # shellcheck disable=SC2086
  plot_cost all_reduce bf16 "$mode" "all-reduce: cost of each design factor ($mode)" \
    "$out/ablation_cost_${mode}.png" two_shot_push $ablation nccl nccl_sym
done
ls "$out"/*.png 2>/dev/null | wc -l | xargs echo "figures:"
