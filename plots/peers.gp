# peers.gp - ratelab's algorithms and the peers side by side, log scale:
# ns/op (one hot key with time passed in; 1M keys uniform) and bytes per key
# (all-in at 1M keys), from peers.dat (ratelab rows first, then peer_NAME).
# gnuplot -e "data='DIR'; out='DIR'" plots/peers.gp
load data.'/vars.gp'
set terminal pngcairo noenhanced size 1300,600 font "DejaVu Sans,11"
load 'plots/style.gp'
set output out.'/peers.png'
set datafile missing "NaN"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set grid ytics
set xtics rotate by -35 nomirror
set key top left
set multiplot layout 1,2 title (peers_run ? "ratelab and the peers, one run" : "ratelab (peers not run: PEERS=0)")
set title "ns/op (log scale)"
set ylabel "ns per check"
plot data.'/peers.dat' using 2:xtic(1) title "one hot key" lt 1, \
     '' using 3 title "1M keys, uniform" lt 2
set title "bytes per key (log scale)"
set ylabel "bytes per key, all-in at 1M keys"
plot data.'/peers.dat' using 4:xtic(1) title "bytes per key" lt 3
unset multiplot
