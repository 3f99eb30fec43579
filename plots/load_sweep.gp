# load_sweep.gp - over-N admissions and false rejects (% of requests)
# against offered load for every algorithm in the simulator's load sweep:
# median over the seeds, bars min-max. One legend, right of both panels.
# gnuplot -e "data='DIR'; out='DIR'" plots/load_sweep.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1500,650 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/load_sweep.png'
set datafile missing "NaN"
set grid
set xlabel "offered load, % of the limit N per W"
set ylabel "% of requests"
set yrange [0:*]
set offsets graph 0.02, graph 0.02, graph 0.05, 0
set tmargin at screen 0.84
set bmargin at screen 0.11
set multiplot title sprintf("Load sweep, scenarios %s to %s: N = %g per window\nmedian over %d seed(s), bars min-max; equal curves coincide", sweep, sweep_last, sweep_limit, seeds)
set title "(a) over-N admissions"
set lmargin at screen 0.05
set rmargin at screen 0.38
unset key
plot for [i=0:words(sweep_algos)-1] data.'/load_sweep.dat' index i using 1:2:3:4 with yerrorlines lt sty(word(sweep_algos, i + 1)) notitle
set title "(b) false rejects"
set lmargin at screen 0.45
set rmargin at screen 0.78
set key at screen 0.80, screen 0.84 left top Left reverse
plot for [i=0:words(sweep_algos)-1] data.'/load_sweep.dat' index i using 1:5:6:7 with yerrorlines lt sty(word(sweep_algos, i + 1)) title word(sweep_algos, i + 1)
unset multiplot
