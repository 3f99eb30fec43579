# sc_error.gp - sliding_counter's error against offered load (the
# simulator's load sweep), beside Cloudflare's published 0.003 % (log y).
# gnuplot -e "data='DIR'; out='DIR'" plots/sc_error.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1000,650 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/sc_error.png'
set title sprintf("sliding_counter: requests decided unlike the exact sliding log (sweep %s..., N = %g per window)", sweep, sweep_limit)
set xlabel "offered load, % of the limit N per W"
set ylabel "% of requests (log scale)"
set logscale y 10
set yrange [0.001:3000]
set ytics ("0.001" 0.001, "0.01" 0.01, "0.1" 0.1, "1" 1, "10" 10, "100" 100)
set grid
set key top left box opaque maxrows 3
set datafile missing "NaN"
plot data.'/sc_error.dat' using 1:($2 > 0 ? $2 : NaN) skip 1 title "false allows" with linespoints, \
     '' using 1:($3 > 0 ? $3 : NaN) skip 1 title "false rejects" with linespoints, \
     '' using 1:($4 > 0 ? $4 : NaN) skip 1 title "total" with linespoints, \
     '' using 1:($4 == 0 ? 0.0013 : NaN) skip 1 title "0 % (drawn on the axis)" with points pt 12 ps 2 lc rgb "black", \
     0.003 title "Cloudflare 2017: 0.003 %" with lines dt 2 lw 2 lc rgb "black"
