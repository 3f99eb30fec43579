# fleet.gp - local plus global: over-admission and false rejects against
# the sync interval S (log x), for k = 2, 4, 16 nodes, random routing
# (left) and sticky routing (right); data from bench/report_fleet.cc.
# gnuplot -e "data='DIR'; out='DIR'" plots/fleet.gp
set terminal pngcairo noenhanced size 1300,600 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/fleet.png'
set multiplot layout 1,2 title "local plus global: error against the sync interval S (N per key and window, central fixed window as reference)"
set logscale x 10
set xlabel "sync interval S, ms (log scale)"
set ylabel "% of what the central limiter admits"
set grid
set key top left box opaque
set yrange [0:*]
set title "random routing"
plot data.'/fleet.dat' using 1:2 title "k=2 over-admitted" with linespoints lt 1, \
     '' using 1:3 title "k=2 false rejects" with linespoints lt 1 dt 2, \
     '' using 1:4 title "k=4 over-admitted" with linespoints lt 2, \
     '' using 1:5 title "k=4 false rejects" with linespoints lt 2 dt 2, \
     '' using 1:6 title "k=16 over-admitted" with linespoints lt 3, \
     '' using 1:7 title "k=16 false rejects" with linespoints lt 3 dt 2
set title "sticky routing (each key always on one node)"
plot data.'/fleet.dat' using 1:8 title "k=2 over-admitted" with linespoints lt 1, \
     '' using 1:9 title "k=2 false rejects" with linespoints lt 1 dt 2, \
     '' using 1:10 title "k=4 over-admitted" with linespoints lt 2, \
     '' using 1:11 title "k=4 false rejects" with linespoints lt 2 dt 2, \
     '' using 1:12 title "k=16 over-admitted" with linespoints lt 3, \
     '' using 1:13 title "k=16 false rejects" with linespoints lt 3 dt 2
unset multiplot
