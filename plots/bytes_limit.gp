# bytes_limit.gp - state bytes per key after N admissions in one window,
# against the limit N (log-log): sliding_log against the fixed-state
# algorithms (the peers have no probe). gnuplot -e "data='DIR'; out='DIR'" plots/bytes_limit.gp
load data.'/vars.gp'
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1100,650 font "DejaVu Sans,12"
set output out.'/bytes_limit.png'
set title "Bytes of state per key against the limit N\n(N admissions at distinct times in one window; lines of equal size coincide)"
set xlabel "limit N, requests per window (log scale)"
set ylabel "bytes per key (log scale)"
set logscale xy 10
set format x "10^%T"
set format y "10^%T"
set grid
set key outside right top Left reverse
set datafile separator ","
probed = ""
do for [a in algos] { if (strstrt(a, "peer_") != 1) { probed = probed." ".a } }
plot for [a in probed] bytes_limit using 2:(strcol(1) eq a ? $3 : NaN) skip 1 \
       title a with linespoints lt sty(a)
