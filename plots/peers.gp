# peers.gp - ratelab's algorithms and the peers side by side, log scale:
# ns/op (one hot key with time passed in; 1M keys uniform) and bytes per key
# (all-in at 1M keys), from peers.dat (ratelab rows first, then peer_NAME);
# each bar in its subject's colour, named under it.
# gnuplot -e "data='DIR'; out='DIR'" plots/peers.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1300,650 font "DejaVu Sans,11"
load 'plots/style.gp'
set output out.'/peers.png'
set datafile missing "NaN"
set logscale y
set grid ytics
set xtics rotate by -35 nomirror
set key top left
stats data.'/peers.dat' using 2 skip 1 nooutput
set xrange [-0.6 : STATS_records - 0.4]
set multiplot layout 1,2 title (peers_run ? "ratelab and the peers, one run" : "ratelab (peers not run: PEERS=0)")
set title "ns per check (log scale)"
set ylabel "ns per check"
set yrange [1:*]
plot data.'/peers.dat' using ($0 - 0.2):2:(0.38):(sty(strcol(1))):xtic(1) skip 1 with boxes fs solid 0.85 border -1 lc variable notitle, \
     '' using ($0 + 0.2):3:(0.38):(sty(strcol(1))) skip 1 with boxes fs pattern 4 border -1 lc variable notitle, \
     keyentry with boxes fs solid 0.85 border -1 lt ls_total title "one hot key", \
     keyentry with boxes fs pattern 4 border -1 lt ls_total title "1M keys, uniform"
set title "bytes per key, all-in at 1M keys (log scale)"
set ylabel "bytes per key"
set yrange [10:*]
plot data.'/peers.dat' using 0:4:(0.6):(sty(strcol(1))):xtic(1) skip 1 with boxes fs solid 0.85 border -1 lc variable notitle
unset multiplot
