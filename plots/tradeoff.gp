# tradeoff.gp - two panels against hot-key ns/op, one point per algorithm,
# labelled with its name (alternately above and below, so that neighbours
# stay legible) and in the legend: (a) over-N admissions and (b) false
# rejects, % of requests; x on a log scale. Error bars: x min-max over the benchmark
# repetitions, y min-max over the simulator seeds.
# gnuplot -e "data='DIR'; out='DIR'" plots/tradeoff.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1500,650 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/tradeoff.png'
set datafile missing "NaN"
set grid
set key inside bottom right vertical box opaque
# log x: the peers' checks cost 10-1000x ratelab's, which a linear axis
# would squeeze into one column of overlapping labels.
set logscale x
set offsets 0, 0, graph 0.35, graph 0.35
set xrange [1:*]
set xlabel "ns/op, hot key, time passed in, verdict only (median, bars min-max; log scale)"
set ylabel "% of requests"
n = words(tradeoff_algos)
set multiplot layout 1,2 title sprintf("Accuracy against cost per check (%d simulator seed(s), median and min-max)", seeds)
do for [panel=1:2] {
	y = panel == 1 ? 5 : 8
	if (panel == 1) { set key inside bottom right vertical box opaque } else { set key inside top right vertical box opaque }
	set title panel == 1 ? "(a) over-N admissions: left more than N in (t - W, t]" : "(b) false rejects: rejected while under N in (t - W, t]"
	plot for [i=0:n-1] data.'/tradeoff.dat' skip 1 every ::i::i using 2:y:3:4:(column(y + 1)):(column(y + 2)) \
	       with xyerrorbars lc (i + 1) pt 7 ps 1.5 title word(tradeoff_algos, i + 1), \
	     data.'/tradeoff.dat' skip 1 every 2 using 2:y:1 with labels rotate by 50 offset char 0.8, char 0.8 left notitle, \
	     data.'/tradeoff.dat' skip 1 every 2::1 using 2:y:1 with labels rotate by -50 offset char 0.8, char -0.8 left notitle
}
unset multiplot
