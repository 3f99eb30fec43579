# tradeoff.gp - two panels against hot-key ns/op, one labelled point per
# algorithm: (a) over-N admissions and (b) false rejects, % of requests.
# Error bars: x min-max over the benchmark repetitions, y min-max over the
# simulator seeds. gnuplot -e "data='DIR'; out='DIR'" plots/tradeoff.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1400,620 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/tradeoff.png'
set datafile missing "NaN"
set grid
set key off
set offsets graph 0.1, graph 0.2, graph 0.35, graph 0.08
set xlabel "ns/op, hot key, time passed in, verdict only (median, bars min-max)"
set multiplot layout 1,2 title sprintf("Accuracy against cost per check (%d simulator seed(s), median and min-max)", seeds)
set title "(a) over-N admissions: left more than N in (t - W, t]"
set ylabel "% of requests"
plot data.'/tradeoff.dat' skip 1 using 2:5:3:4:6:7:($0 + 1) with xyerrorbars lc variable pt 7 ps 1.5, \
     '' skip 1 using 2:5:1 with labels rotate by 60 offset char 0.8, char 0.8 left
set title "(b) false rejects: rejected while under N in (t - W, t]"
plot data.'/tradeoff.dat' skip 1 using 2:8:3:4:9:10:($0 + 1) with xyerrorbars lc variable pt 7 ps 1.5, \
     '' skip 1 using 2:8:1 with labels rotate by 60 offset char 0.8, char 0.8 left
unset multiplot
