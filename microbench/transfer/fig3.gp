# Figure 3: GB/s vs SMs issuing, one panel per direction and message size present, one curve
# per mechanism present, with the line rate and the copy engine's best as reference lines.
# Variables: data, out, term, gpu, dirs, sizes, line_rate, ce_<dir>, m3_<dir>_<size>,
# c_/d_/p_<mechanism>.
nd = words(dirs); ns = words(sizes)
if (term eq 'png') { set terminal pngcairo size 760*ns,460*nd font ',11' linewidth 1.4 } else { set terminal svg size 760*ns,460*nd font ',11' }
set output out
set termoption noenhanced
set multiplot layout nd,ns title sprintf('Figure 3: bandwidth vs SMs used (%s)', gpu) font ',13'
set xlabel 'SMs issuing (one block per SM unless blocks_per_sm says more)'
set ylabel 'GB/s per direction (GB = 1e9 B)'
set grid
set key outside right top vertical Left reverse samplen 3 spacing 1.15
set logscale x 2
set xrange [1:160]
if (line_rate > 0) { set yrange [0:line_rate * 1.08] } else { set yrange [0:*] }
kib(s) = s >= 1024 && s % 1024 == 0 ? sprintf('%d KiB', s / 1024) : sprintf('%d B', s)
do for [d in dirs] {
  ce = value(sprintf('ce_%s', d))
  do for [s in sizes] {
    ms = value(sprintf('m3_%s_%s', d, s))
    set title sprintf('%s, %s messages', d, kib(s + 0))
    if (words(ms) == 0) {
      set label 1 'not measured' at graph 0.5, 0.5 center
      plot NaN notitle
      unset label 1
    } else {
      plot for [i=1:words(ms)] sprintf('%s/fig3_%s_%s_%s.dat', data, word(ms, i), d, s) using 1:2 \
             with linespoints lc rgb value('c_'.word(ms, i)) dt value('d_'.word(ms, i)) pt value('p_'.word(ms, i)) ps 0.7 \
             title word(ms, i), \
           (line_rate > 0 ? line_rate : NaN) with lines lc rgb '#444444' dt 1 lw 1.5 title sprintf('NVLink line rate (%.0f GB/s)', line_rate), \
           (ce > 0 ? ce : NaN) with lines lc rgb '#000000' dt 3 lw 1.5 title sprintf('copy engine best (%.0f GB/s)', ce)
    }
  }
}
unset multiplot
