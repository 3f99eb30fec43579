# history.gp - estimated cycles per operation of every perf entry across the
# commits of results/baseline/history.csv (one point per `make perf-baseline`).
# gnuplot -e "data='DIR'; out='DIR'" plots/history.gp
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1100,700 font "DejaVu Sans,11"
set output out.'/history.png'
set title "Performance gate: estimated cycles per operation across commits (callgrind)"
set xlabel "baseline commit"
set ylabel "estimated cycles / op"
set logscale y 10
set grid
set key outside right top
set datafile missing "NaN"
set xtics rotate by -30
set offsets 0.2, 0.2, 0, 0
load data.'/history_vars.gp'
plot for [i=2:history_cols] data.'/history.dat' using 0:i:xtic(1) title columnhead(i) with linespoints
