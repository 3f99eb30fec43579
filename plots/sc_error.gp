# sc_error.gp - sliding_counter's over-N admissions and false rejects (each
# decision judged on its own admitted history) against offered load (the
# simulator's load sweep, medians over the seeds), beside the same metric on
# the Cloudflare-style population and Cloudflare's published 0.003 % (log y).
# gnuplot -e "data='DIR'; out='DIR'" plots/sc_error.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1000,720 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/sc_error.png'
set title sprintf("sliding_counter: over-N admissions and false rejects, one key per source\n(load sweep %s to %s, N = %g per window; medians over the seeds)", sweep, sweep_last, sweep_limit)
set xlabel "offered load, % of the limit N per W"
set ylabel "% of requests (log scale)"
set logscale y 10
set yrange [0.0005:300]
set ytics ("0.001" 0.001, "0.01" 0.01, "0.1" 0.1, "1" 1, "10" 10, "100" 100)
set grid
set key below maxrows 3
set datafile missing "NaN"
plot data.'/sc_error.dat' using 1:($2 > 0 ? $2 : NaN) skip 1 title "over-N admissions" with linespoints lt ls_sliding_counter, \
     '' using 1:($3 > 0 ? $3 : NaN) skip 1 title "false rejects" with linespoints lt ls_sliding_counter dt 2 pt 6, \
     '' using 1:($4 > 0 ? $4 : NaN) skip 1 title "total" with linespoints lt ls_total, \
     '' using 1:($4 == 0 ? 0.0007 : NaN) skip 1 title "total 0 % (drawn on the axis)" with points lt ls_total pt 12 ps 2, \
     0.003 title "Cloudflare 2017: 0.003 % (population, all requests)" with lines lt ls_published, \
     (population_total > 0 ? population_total : NaN) title "this run's population: over-N + false rejects" with lines lt ls_sliding_counter dt 3
