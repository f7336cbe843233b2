# Synchronisation latency by primitive (one-way or one operation, median, p10..p90 bars),
# log scale. Variables: data (index ns p10 p90 label), out, term, gpu.
n = system(sprintf("wc -l < '%s'", data)) + 0
if (term eq 'png') { set terminal pngcairo size 1400,900 font ',10' } else { set terminal svg size 1400,900 font ',10' }
set output out
set termoption noenhanced
set title sprintf('Synchronisation latency by primitive (%s): median, p10-p90', gpu)
set logscale x 10
set xlabel 'ns (one-way, or one operation)'
set ytics nomirror
set grid x
set yrange [-1:n]
set key off
set lmargin 75
plot data using 2:($0):3:4:ytic(5) with xerrorbars pt 7 ps 0.8 lc rgb '#1f77b4'
