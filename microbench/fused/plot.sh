#!/usr/bin/env bash
# Redraw the fused study's figures from its CSVs (PNG beside them) and write Table 3:
#   microbench/fused/plot.sh results/h200x2/fused
# Reads fused.csv (Figures 4, 7, 8, 9: TFLOP/s against the paper's N, each schedule at its
# best knob setting), fused_fig5.csv (Figure 5: time against the communication SMs) and
# fused_table3.csv (table3.md). What is drawn comes from the rows present; error rows are left
# out (the CSV keeps them).
set -euo pipefail
dir=${1:?usage: microbench/fused/plot.sh RESULTS_DIR}
[ -d "$dir" ] || { echo "plot.sh: no such folder: $dir" >&2; exit 2; }
[ -f "$dir/fused.csv" ] || { echo "plot.sh: $dir has no fused.csv" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || { echo "plot.sh: gnuplot is not installed here (apt install gnuplot-nox)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Best (least) median time per op, N and schedule over its knobs: "$tmp/best_<op>_<impl>.dat"
# with lines "N tflops time_us knobs".
awk -F, -v out="$tmp" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["status"] == "ok" && $c["size_n"] != "" && $c["tflops"] != "" {
    k = $c["op"] SUBSEP $c["impl"] SUBSEP $c["size_n"]; t = $c["time_us_median"] + 0
    if (!(k in best) || t < best[k]) { best[k] = t; tf[k] = $c["tflops"]; cs[k] = $c["comm_sms"] }
  }
  END { for (k in best) { split(k, a, SUBSEP); f = out "/best_" a[1] "_" a[2] ".dat"
          print a[3], tf[k], best[k], (cs[k] == "" ? "-" : cs[k]) >> f } }' "$dir/fused.csv"
for f in "$tmp"/best_*.dat; do sort -n -o "$f" "$f"; done
gpu=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["gpu_name"] " x" $c["gpus"] ", commit " $c["git_commit"]; exit }' "$dir/fused.csv")

# One figure: TFLOP/s against N for every schedule of OP with rows in the CSV (the
# collectives alone have no TFLOP/s and no rows here).
tflops_fig() {  # OUT TITLE OP
  local out=$1 title=$2 op=$3 plots="" i=0 f im
  for f in "$tmp"/best_"${op}"_*.dat; do
    [ -s "$f" ] || continue
    im=${f##*/best_"${op}"_}
    im=${im%.dat}
    plots+="${plots:+, }'$f' using 1:2 with linespoints lw 2 pt $((i + 4)) dt $((i % 5 + 1)) title '$im'"
    i=$((i + 1))
  done
  [ -n "$plots" ] || return 0
  gnuplot <<EOF
set terminal pngcairo size 900,560 font ',11'
set output '$out'
set termoption noenhanced
set title "$title\n($gpu; each schedule at its best comm SMs / chunks)"
set xlabel "N (the paper's size; local shapes in the title)"
set ylabel 'TFLOP/s (higher is better)'
set logscale x 2
set grid
set key outside right top
set yrange [0:*]
plot $plots
EOF
  echo "wrote $out"
}
tflops_fig "$dir/fig7_ag_gemm.png" "Figure 7: AG + GEMM, local N x N/w x N" ag_gemm
tflops_fig "$dir/fig8_gemm_rs.png" "Figure 8: GEMM + RS, local N x N x N/w" gemm_rs
tflops_fig "$dir/fig9_gemm_ar.png" "Figure 9: GEMM + AR, local N x N x N/w" gemm_ar

# Figure 4: intra- against inter-SM overlap, GEMM+RS (left) and GEMM+AR (right).
if [ -s "$tmp/best_gemm_rs_intra_sm.dat" ]; then
  gnuplot <<EOF
set terminal pngcairo size 1300,520 font ',11'
set output '$dir/fig4_intra_vs_inter.png'
set termoption noenhanced
set multiplot layout 1,2 title "Figure 4: intra-SM against inter-SM overlap ($gpu; inter-SM at its best comm SMs)"
set logscale x 2
set grid
set yrange [0:*]
set xlabel 'N'
set ylabel 'TFLOP/s'
set key bottom right
set title 'GEMM + RS'
plot '$tmp/best_gemm_rs_intra_sm.dat' using 1:2 with linespoints lw 2 pt 5 title 'intra_sm', \
     '$tmp/best_gemm_rs_inter_sm.dat' using 1:2 with linespoints lw 2 pt 7 dt 2 title 'inter_sm', \
     '$tmp/best_gemm_rs_gemm_pk.dat' using 1:2 with lines lc rgb '#777777' dt 3 title 'GEMM alone'
set title 'GEMM + AR'
plot '$tmp/best_gemm_ar_intra_sm.dat' using 1:2 with linespoints lw 2 pt 5 title 'intra_sm', \
     '$tmp/best_gemm_ar_inter_sm.dat' using 1:2 with linespoints lw 2 pt 7 dt 2 title 'inter_sm', \
     '$tmp/best_gemm_ar_gemm_pk.dat' using 1:2 with lines lc rgb '#777777' dt 3 title 'GEMM alone'
unset multiplot
EOF
  echo "wrote $dir/fig4_intra_vs_inter.png"
fi

# Figure 5: time against communication SMs, one panel per operator, one curve per N; the
# GEMM alone and cuBLAS-then-NCCL at each N as reference points at x = 0.
if [ -f "$dir/fused_fig5.csv" ]; then
  awk -F, -v out="$tmp" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["status"] == "ok" && $c["impl"] == "inter_sm" { print $c["comm_sms"], $c["time_us_median"] >> (out "/f5_" $c["op"] "_" $c["size_n"] ".dat") }
    $c["status"] == "ok" && ($c["impl"] == "cublas_nccl" || $c["impl"] == "intra_sm") { print 0, $c["time_us_median"] >> (out "/f5ref_" $c["op"] "_" $c["impl"] "_" $c["size_n"] ".dat") }' \
    "$dir/fused_fig5.csv"
  sizes=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["size_n"] != "" && !s[$c["size_n"]]++ { printf "%s ", $c["size_n"] }' "$dir/fused_fig5.csv")
  {
    echo "set terminal pngcairo size 1500,$((420 * $(wc -w <<<"$sizes"))) font ',10'"
    echo "set output '$dir/fig5_sm_split.png'"
    echo "set termoption noenhanced"
    echo "set multiplot layout $(wc -w <<<"$sizes"),3 title \"Figure 5: inter-SM time against the SMs given to communication ($gpu; x = 0: cuBLAS then NCCL (square), intra-SM (triangle))\""
    echo "set grid; set xlabel 'communication SMs'; set ylabel 'time (us, lower is better)'; set yrange [0:*]; set xrange [-1:33]; set key top right"
    for n in $sizes; do
      for op in ag_gemm gemm_rs gemm_ar; do
        f=$tmp/f5_${op}_$n.dat
        [ -s "$f" ] || { echo "set title '$op N=$n: not measured'; plot NaN notitle"; continue; }
        sort -n -o "$f" "$f"
        echo "set title '$op, N = $n'"
        echo "plot '$f' using 1:2 with linespoints lw 2 pt 7 title 'inter_sm', '$tmp/f5ref_${op}_cublas_nccl_$n.dat' using 1:2 with points pt 5 ps 1.5 title 'cublas_nccl', '$tmp/f5ref_${op}_intra_sm_$n.dat' using 1:2 with points pt 9 ps 1.5 title 'intra_sm'"
      done
    done
    echo "unset multiplot"
  } > "$tmp/fig5.gp"
  gnuplot "$tmp/fig5.gp" && echo "wrote $dir/fig5_sm_split.png"
fi

# Table 3: GEMM alone, cuBLAS then NCCL and the fused GEMM+RS against K (ms), with the
# non-overlapped communication ratio ((fused - GEMM alone) / fused, the comm_ratio column).
if [ -f "$dir/fused_table3.csv" ]; then
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["status"] == "ok" { k = $c["k"]; t[k, $c["impl"]] = $c["time_us_median"] / 1000; r[k, $c["impl"]] = $c["comm_ratio"]; if (!seen[k]++) ks[++n] = k; m = $c["m"] }
    END {
      printf "# Table 3: GEMM + RS at M = N = %s against K (ms, %s)\n\n", m, "median of the run"
      print "| K | GEMM alone (ours) | cuBLAS | cuBLAS then NCCL | fused intra-SM | non-overlapped comm, intra | fused inter-SM | non-overlapped comm, inter |"
      print "|---|---|---|---|---|---|---|---|"
      for (i = 1; i <= n; i++) { k = ks[i]
        printf "| %s | %.3f | %.3f | %.3f | %.3f | %.1f %% | %.3f | %.1f %% |\n", k, t[k, "gemm_pk"], t[k, "gemm_cublas"], t[k, "cublas_nccl"],
          t[k, "intra_sm"], 100 * r[k, "intra_sm"], t[k, "inter_sm"], 100 * r[k, "inter_sm"] }
    }' "$dir/fused_table3.csv" > "$dir/table3.md"
  echo "wrote $dir/table3.md"
fi
