# Figure 2: bandwidth (% of the NVLink line rate) vs message size, one panel per direction
# and pattern present, one curve per mechanism present (scripts/plot.sh derives the lists
# from the CSV). Variables: data, out, term, gpu, dirs, pats, line_rate, ce_<dir> (GB/s),
# m2_<dir>_<pat> (mechanisms of a panel), c_/d_/p_<mechanism> (colour, dash, point).
nd = words(dirs); np = words(pats)
if (term eq 'png') { set terminal pngcairo size 1000*np,520*nd font ',11' linewidth 1.4 } else { set terminal svg size 1000*np,520*nd font ',11' }
set output out
set termoption noenhanced
set multiplot layout nd,np title sprintf('Figure 2: transfer bandwidth vs message size (%s)', gpu) font ',13'
set logscale x 2
set xrange [16:2**30]
set xtics ('16 B' 16, '256 B' 256, '4 KiB' 4096, '64 KiB' 65536, '1 MiB' 2**20, '16 MiB' 2**24, '256 MiB' 2**28, '1 GiB' 2**30)
set xlabel 'message size (bytes per copy-engine call, TMA operation or register block-iteration)'
set ylabel sprintf('%% of NVLink line rate (100 %% = %.0f GB/s per direction)', line_rate)
set yrange [0:105]
set grid
set key outside right top vertical Left reverse samplen 3 spacing 1.15
do for [d in dirs] {
  do for [p in pats] {
    ms = value(sprintf('m2_%s_%s', d, p))
    ce = value(sprintf('ce_%s', d))
    set title sprintf('%s, %s', d, p eq 'one_way' ? 'one direction' : (p eq 'bidir' ? 'both directions (per direction)' : p))
    if (words(ms) == 0) {
      set label 1 'not measured' at graph 0.5, 0.5 center
      plot NaN notitle
      unset label 1
    } else {
      plot for [i=1:words(ms)] sprintf('%s/fig2_%s_%s_%s.dat', data, word(ms, i), d, p) using 1:2 \
             with linespoints lc rgb value('c_'.word(ms, i)) dt value('d_'.word(ms, i)) pt value('p_'.word(ms, i)) ps 0.7 \
             title word(ms, i), \
           100 with lines lc rgb '#444444' dt 1 lw 1.5 title sprintf('NVLink line rate (%.0f GB/s)', line_rate), \
           (ce > 0 && line_rate > 0 ? 100 * ce / line_rate : NaN) with lines lc rgb '#000000' dt 3 lw 1.5 \
             title sprintf('copy engine best (%.0f GB/s)', ce)
    }
  }
}
unset multiplot
