# tradeoff.gp - error (false allow + false reject %, simulator) against
# hot-key ns/op, one point per algorithm (named in the legend with its bytes
# per key), point size growing with bytes per key; translucent fills with a
# solid ring so that coinciding algorithms stay visible.
# gnuplot -e "data='DIR'; out='DIR'" plots/tradeoff.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1000,650 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/tradeoff.png'
set title "Error against cost per check (point size grows with bytes per key, all-in at 1M keys)"
set xlabel "ns/op, hot key, time passed in, verdict only"
set ylabel "error: false allow + false reject, % of requests"
set grid
set key outside right top title "algorithm, bytes/key" box
set offsets graph 0.1, graph 0.1, graph 0.1, graph 0.1
set datafile missing "NaN"
# the peers (bench/peers/) cost 10-1000x more per check: a log axis keeps ratelab's points apart
if (words(peers) > 0) set logscale x; set xlabel "ns/op, hot key, time passed in, verdict only (log scale)"
array fill[6] = ["#701f5fa8", "#70d9731a", "#702e9a45", "#70c0332b", "#707a4fa8", "#706b6b6b"]
size(b) = 1.5 + 1.5 * log(b / 8) / log(2)
plot for [i=0:words(algos)+words(peers)-1] data.'/tradeoff.dat' index i using 1:2:(size($3)) \
       with points pt 7 ps variable lc rgb fill[i % 6 + 1] notitle, \
     for [i=0:words(algos)+words(peers)-1] data.'/tradeoff.dat' index i using 1:2:(size($3)) \
       with points pt 6 ps variable lw 2 lc (i + 1) title columnheader(1)
