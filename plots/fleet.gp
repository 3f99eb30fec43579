# fleet.gp - local plus global: over-admission and false rejects against
# the sync interval S (log x), for k = 2, 4, 16 nodes (the steps' colours),
# random routing (left) and sticky routing (right); data from bench/report_fleet.cc.
# gnuplot -e "data='DIR'; out='DIR'" plots/fleet.gp
set terminal pngcairo noenhanced size 1500,650 font "DejaVu Sans,12"
load 'plots/style.gp'
set output out.'/fleet.png'
set tmargin at screen 0.84
set bmargin at screen 0.11
set multiplot title "Local plus global: error against the sync interval S\n(N per key and window; the central fixed window is the reference)"
set logscale x 10
set xlabel "sync interval S, ms (log scale)"
set ylabel "% of what the central limiter admits"
set grid
set yrange [0:*]
set title "random routing"
set lmargin at screen 0.05
set rmargin at screen 0.38
unset key
plot data.'/fleet.dat' using 1:2 title "k=2 over-admitted" with linespoints lt ls_step1, \
     '' using 1:3 title "k=2 false rejects" with linespoints lt ls_step1 dt 2, \
     '' using 1:4 title "k=4 over-admitted" with linespoints lt ls_step2, \
     '' using 1:5 title "k=4 false rejects" with linespoints lt ls_step2 dt 2, \
     '' using 1:6 title "k=16 over-admitted" with linespoints lt ls_step3, \
     '' using 1:7 title "k=16 false rejects" with linespoints lt ls_step3 dt 2
set title "sticky routing (each key always on one node)"
set lmargin at screen 0.45
set rmargin at screen 0.78
# one legend for both panels, right of them
set key at screen 0.80, screen 0.84 left top Left reverse
plot data.'/fleet.dat' using 1:8 title "k=2 over-admitted" with linespoints lt ls_step1, \
     '' using 1:9 title "k=2 false rejects" with linespoints lt ls_step1 dt 2, \
     '' using 1:10 title "k=4 over-admitted" with linespoints lt ls_step2, \
     '' using 1:11 title "k=4 false rejects" with linespoints lt ls_step2 dt 2, \
     '' using 1:12 title "k=16 over-admitted" with linespoints lt ls_step3, \
     '' using 1:13 title "k=16 false rejects" with linespoints lt ls_step3 dt 2
unset multiplot
