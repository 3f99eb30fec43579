# tradeoff.gp - two panels against hot-key ns/op, one point per algorithm in
# its subject's style: (a) over-N admissions and (b) false rejects, % of
# requests; x on a log scale. Error bars: x min-max over the benchmark
# repetitions, y min-max over the simulator seeds. Each point's name is
# placed apart from the others by the report (tradeoff_labels.dat) and tied
# to its point by a thin line; the legend is outside the panels.
# gnuplot -e "data='DIR'; out='DIR'" plots/tradeoff.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size tradeoff_w,tradeoff_h font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/tradeoff.png'
set datafile missing "NaN"
set grid
# log x: the peers' checks cost 10-1000x ratelab's, which a linear axis
# would squeeze into one column
set logscale x
set xrange [1:tradeoff_xmax]
set xlabel "ns/op, hot key, time passed in, verdict only (log scale)"
set ylabel "% of requests"
set bmargin at screen tradeoff_bottom
set tmargin at screen tradeoff_top
n = words(tradeoff_algos)
set multiplot title sprintf("Accuracy against cost per check\nmedians; bars min-max over the repetitions (x) and over %d simulator seed(s) (y)", seeds)
do for [panel=1:2] {
	y = panel == 1 ? 5 : 8
	set lmargin at screen word(tradeoff_left, panel) + 0
	set rmargin at screen word(tradeoff_right, panel) + 0
	set yrange [0:(panel == 1 ? tradeoff_ymax_over : tradeoff_ymax_rej)]
	if (panel == 1) { unset key } else { set key at screen word(tradeoff_right, 2) + 0.02, screen tradeoff_top left top Left reverse }
	set title panel == 1 ? "(a) over-N admissions: left more than N in (t - W, t]" : "(b) false rejects: rejected while under N in (t - W, t]"
	plot for [i=0:n-1] data.'/tradeoff.dat' skip 1 every ::i::i using 2:y:3:4:(column(y + 1)):(column(y + 2)) \
	       with xyerrorbars lt sty(word(tradeoff_algos, i + 1)) title word(tradeoff_algos, i + 1), \
	     data.'/tradeoff_labels.dat' index (panel - 1) skip 1 using 2:3:($6 - $2):($7 - $3) with vectors nohead lt ls_total lw 0.7 notitle, \
	     data.'/tradeoff_labels.dat' index (panel - 1) skip 1 using 4:5:1 with labels left notitle
}
unset multiplot
