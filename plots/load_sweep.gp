# load_sweep.gp - over-N admissions and false rejects (% of requests)
# against offered load for every algorithm in the simulator's load sweep:
# median over the seeds, bars min-max.
# gnuplot -e "data='DIR'; out='DIR'" plots/load_sweep.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1400,620 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/load_sweep.png'
set datafile missing "NaN"
set grid
set xlabel "offered load, % of the limit N per W"
set ylabel "% of requests"
set key top left box opaque
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
set multiplot layout 1,2 title sprintf("Load sweep %s... (N = %g per window; median over %d seed(s), bars min-max)", sweep, sweep_limit, seeds)
set title "(a) over-N admissions"
plot for [i=0:words(sweep_algos)-1] data.'/load_sweep.dat' index i using 1:2:3:4 with yerrorlines lc (i + 1) title columnheader(1)
set title "(b) false rejects"
plot for [i=0:words(sweep_algos)-1] data.'/load_sweep.dat' index i using 1:5:6:7 with yerrorlines lc (i + 1) title columnheader(1)
unset multiplot
