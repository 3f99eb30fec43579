# theory.gp - the simulator against queueing theory (sim/theory.h): per
# algorithm, the rejected share against offered load, the closed form's
# curve per burst and the measured points (all seeds pooled) with bars of
# +-2 standard errors (batch means); a panel in its algorithm's colour, the
# bursts told apart by dash and marker. sliding_counter, without a closed
# form, is drawn against the fixed window's and the sliding log's curves.
# gnuplot -e "data='DIR'; out='DIR'" plots/theory.gp
set terminal pngcairo noenhanced size 1500,950 font "DejaVu Sans,11"
load 'plots/style.gp'
set output out.'/theory.png'
set datafile missing "NaN"
set grid
set xlabel "offered load, % of N per W"
set ylabel "rejected, % of requests"
set key top left box opaque
set xrange [45:155]
set yrange [0:*]
# headroom above the curves for the legend
set offsets 0, 0, graph 0.3, 0
set multiplot layout 2,3 title "Rejection rate against load: closed form (lines) and simulator (points, bars +-2 SE)"
# panel ALGO: its curves and points, one block per burst
panel(a) = sprintf("stats '%s/theory_%s.dat' using 1 every ::1 nooutput", data, a)
do for [a in "token_bucket gcra leaky_bucket fixed_window sliding_log"] {
	eval panel(a)
	set title a
	plot for [i=0:STATS_blocks-1] data.'/theory_'.a.'.dat' index i using 1:2 with lines lt sty(a) dt step_dt(i + 1) title columnheader(1), \
	     for [i=0:STATS_blocks-1] data.'/theory_'.a.'_points.dat' index i using 1:2:($3 * 2) with yerrorbars lt sty(a) pt step_pt(i + 1) ps 0.9 notitle
}
set title "sliding_counter (no closed form)"
plot data.'/theory_fixed_window.dat' index 0 using 1:2 with lines lt ls_fixed_window title "fixed_window theory", \
     data.'/theory_sliding_log.dat' index 0 using 1:2 with lines lt ls_sliding_log title "sliding_log theory", \
     data.'/theory_sliding_counter_points.dat' index 0 using 1:2:($3 * 2) with yerrorbars lt ls_sliding_counter ps 0.9 title "sliding_counter measured"
unset multiplot
