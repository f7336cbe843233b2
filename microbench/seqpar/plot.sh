#!/usr/bin/env bash
# plot.sh SEQPAR_DIR: the sequence-parallel study's figures (gnuplot) from the CSVs of a results
# folder's seqpar/ (seqpar.csv, ulysses*.csv), PNGs beside them:
#   ring_N<n>_H<h>.png      a ring pass vs S per rank: every schedule (inter_sm at its best split),
#                           the compute and the transfer alone (Figure 10's view)
#   ring_split_N<n>_H<h>.png  inter_sm's pass vs its communication SMs, one curve per S
#   ulysses_<coll>_<mode>.png  Figures 15-20's view: the nccl-tests time vs size, ours (each
#                           implementation) and NCCL + reshape, at the largest GPU count measured
set -euo pipefail
dir=${1:?usage: plot.sh SEQPAR_DIR}
command -v gnuplot >/dev/null || { echo "gnuplot not found: no figures" >&2; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
drew=0
plot() {  # PNG TITLE XLABEL YLABEL LOGX FILES...: one line per file, titled by its name after "__"
  local png=$1 title=$2 xl=$3 yl=$4 logx=$5 f first=1
  shift 5
  {
    echo "set terminal pngcairo size 1000,560 font ',10'; set output '$png'; set termoption noenhanced"
    echo "set title '$title'; set xlabel '$xl'; set ylabel '$yl'; set logscale y; set grid; set key outside right"
    [ "$logx" = 1 ] && echo "set logscale x 2"
    printf 'plot '
    for f in "$@"; do
      [ $first = 1 ] || printf ', '
      first=0
      printf "'%s' using 1:2 with linespoints title '%s'" "$f" "$(basename "$f" .dat | sed 's/.*__//')"
    done
    echo
  } | gnuplot
  drew=1
}
ring=$dir/seqpar.csv
if [ -f "$ring" ]; then
  # pass[N,H,impl,S] = the fastest ok row (inter_sm: over its splits); split[N,H,S,sms] = inter_sm's.
  awk -F, -v d="$tmp" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
    $c["status"]=="ok" && $c["verified"]=="yes" {
      k=$c["ranks"]"_"$c["heads"]; im=$c["impl"]; s=$c["seq_per_rank"]; t=$c["op_us_median"]+0
      key=k SUBSEP im SUBSEP s
      if (!(key in best) || t < best[key]) best[key]=t
      if (im=="inter_sm") print s, $c["sms"], t >> (d"/split_"k"__S"s".raw")
    }
    END { for (key in best) { split(key, a, SUBSEP); print a[3], best[key] >> (d"/ring_"a[1]"__"a[2]".raw") } }' "$ring"
  for f in "$tmp"/ring_*.raw "$tmp"/split_*.raw; do [ -f "$f" ] && sort -n "$f" > "${f%.raw}.dat"; done
  for k in $(ls "$tmp" | sed -n 's/^ring_\([0-9]*_[0-9]*\)__.*\.dat$/\1/p' | sort -u); do
    n=${k%_*} h=${k#*_}
    plot "$dir/ring_N${n}_H${h}.png" "ring KV pass, N=$n H=$h: a pass (N steps) vs S per rank" "S per rank (tokens)" "us per pass" 1 "$tmp"/ring_"${k}"__*.dat
    files=()
    for f in "$tmp"/split_"${k}"__S*.dat; do [ -f "$f" ] && { awk '{print $2, $3}' "$f" | sort -n > "$f.sms"; mv "$f.sms" "$f"; files+=("$f"); }; done
    [ ${#files[@]} -gt 0 ] && plot "$dir/ring_split_N${n}_H${h}.png" "inter_sm, N=$n H=$h: a pass vs communication SMs" "communication SMs" "us per pass" 0 "${files[@]}"
  done
fi
for u in "$dir"/ulysses*.csv; do
  [ -f "$u" ] || continue
  stem=$(basename "$u" .csv)
  awk -F, -v d="$tmp" -v s="$stem" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
    $c["status"]=="ok" && $c["time_us_nccltests"]!="" { g=$c["gpus"]+0; col=$c["collective"]; if (g > top[col]) top[col]=g
      row[NR]=col"\t"$c["launch_mode"]"\t"$c["impl"]"\t"g"\t"$c["bytes"]"\t"$c["time_us_nccltests"] }
    END { for (r in row) { split(row[r], a, "\t"); if (a[4]==top[a[1]]) print a[5], a[6] >> (d"/u_"s"_"a[1]"_"a[2]"_N"a[4]"__"a[3]".raw") } }' "$u"
  for f in "$tmp"/u_"$stem"_*.raw; do [ -f "$f" ] && sort -n "$f" > "${f%.raw}.dat"; done
  for g in $(ls "$tmp" | sed -n "s/^u_${stem}_\(.*\)__.*\.dat$/\1/p" | sort -u); do
    plot "$dir/${stem}_${g}.png" "$stem: ${g//_/ } (nccl-tests time; NCCL with the reshape copies)" "bytes" "us" 1 "$tmp"/u_"${stem}"_"${g}"__*.dat
  done
done
[ "$drew" = 1 ] || { echo "plot.sh: no seqpar CSV with rows in $dir" >&2; exit 1; }
ls "$dir"/*.png | sed 's/^/plot.sh: wrote /' >&2
