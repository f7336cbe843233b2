# Figure 3: bandwidth vs SM count per device mechanism and message size, with the copy
# engine's best as a reference line. Variables: data, out, term, gpu, ce_push, ce_pull.
if (term eq 'png') { set terminal pngcairo size 1400,560 font ',11' } else { set terminal svg size 1400,560 font ',11' }
set output out
set termoption noenhanced
set multiplot layout 1,2 title sprintf('Bandwidth vs SMs used (%s)', gpu)
set xlabel 'SMs (one block per SM)'
set ylabel 'GB/s (per direction)'
set grid
set key right bottom
set logscale x 2
set xrange [1:160]
set yrange [0:*]
mechs = 'tma_bulk tma_tile reg'
sizes = '2048 16384 65536'
labels = '2KiB 16KiB 64KiB'
do for [dir in 'push pull'] {
  ce = dir eq 'push' ? ce_push : ce_pull
  set title sprintf('%s', dir)
  plot for [m=1:3] for [s=1:3] sprintf('%s/fig3_%s_%s_%s.dat', data, word(mechs, m), dir, word(sizes, s)) \
         using 1:2 with linespoints lc m dt s pt 7 ps 0.5 title sprintf('%s %s', word(mechs, m), word(labels, s)), \
       ce with lines lc rgb 'black' dt 2 title 'copy engine best'
}
unset multiplot
