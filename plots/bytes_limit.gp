# bytes_limit.gp - state bytes per key after N admissions in one window,
# against the limit N (log-log): sliding_log against the fixed-state
# algorithms. gnuplot -e "data='DIR'; out='DIR'" plots/bytes_limit.gp
load data.'/vars.gp'
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1000,650 font "DejaVu Sans,12"
set output out.'/bytes_limit.png'
set title "Bytes of state per key against the limit N (N admissions at distinct times in one window)"
set xlabel "limit N (requests per window)"
set ylabel "bytes per key"
set logscale xy 10
set format x "%.0e"
set format y "%.0e"
set grid
set key top left
set datafile separator ","
plot for [a in algos] bytes_limit using 2:(strcol(1) eq a ? $3 : NaN) skip 1 \
       title a with linespoints
