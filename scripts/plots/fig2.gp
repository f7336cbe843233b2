# Figure 2: bandwidth utilisation vs message size, one curve per mechanism, one panel per
# direction and pattern. Variables: data (folder of .dat curves), out, term, gpu.
if (term eq 'png') { set terminal pngcairo size 1400,1000 font ',11' } else { set terminal svg size 1400,1000 font ',11' }
set output out
set termoption noenhanced
set multiplot layout 2,2 title sprintf('Transfer bandwidth vs message size (%s), %% of NVLink line rate', gpu)
set logscale x 2
set xrange [16:2**30]
set format x '%.0b%B'
set xlabel 'message size (bytes per call / TMA op / block-iteration)'
set ylabel '% of line rate'
set yrange [0:100]
set grid
set key right bottom
mechs = 'ce tma_bulk tma_tile reg reg_l2hint'
do for [pat in 'one_way bidir'] {
  do for [dir in 'push pull'] {
    set title sprintf('%s, %s', dir, pat eq 'one_way' ? 'one direction' : 'both directions (per direction)')
    plot for [i=1:words(mechs)] sprintf('%s/fig2_%s_%s_%s.dat', data, word(mechs, i), dir, pat) \
         using 1:2 with linespoints pt 7 ps 0.6 title word(mechs, i)
  }
}
unset multiplot
