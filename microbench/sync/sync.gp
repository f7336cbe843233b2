# Synchronisation latency by primitive (one-way or one operation, median, p10..p90 bars),
# log scale, with the paper's two numbers as reference lines. Variables: data (index ns
# p10 p90 label), out, term, gpu.
n = system(sprintf("wc -l < '%s'", data)) + 0
if (term eq 'png') { set terminal pngcairo size 1400,160+18*n font ',10' } else { set terminal svg size 1400,160+18*n font ',10' }
set output out
set termoption noenhanced
set title sprintf("Synchronisation latency by primitive: median, bars p10..p90\n%s", gpu) font ',12' offset -30,0
set logscale x 10
set xlabel 'latency (ns, one-way for ping-pongs, else per operation; log scale)'
set ytics nomirror
set grid x
set yrange [-1:n]
set key top left box opaque
set lmargin 75
set arrow 1 from 64, graph 0 to 64, graph 1 nohead dt 2 lc rgb '#D55E00'
set arrow 2 from 832, graph 0 to 832, graph 1 nohead dt 2 lc rgb '#009E73'
plot data using 2:($0):3:4:ytic(5) with xerrorbars pt 7 ps 0.8 lc rgb '#0072B2' title 'pkbench median (p10..p90)', \
     NaN with lines dt 2 lc rgb '#D55E00' title 'paper: intra-SM mbarrier ~64 ns', \
     NaN with lines dt 2 lc rgb '#009E73' title 'paper: inter-SM through HBM ~832 ns'
