# keys.gp - ns/op of rl_store_check against the number of keys (uniform
# order, log x), every algorithm, with the dependent- and independent-load
# memory floors; the peers' keyed maps at 1K and 1M keys (NaN elsewhere).
# gnuplot -e "data='DIR'; out='DIR'" plots/keys.gp
load data.'/vars.gp'
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1000,650 font "DejaVu Sans,12"
set output out.'/keys.png'
set title "Keyed store: ns/op against keys (uniform), with the memory floor and the peers' keyed maps"
set xlabel "keys in the store"
set ylabel "ns/op"
set logscale x 10
set logscale y 10
set format x "%.0e"
set grid
set key top left
set datafile missing "NaN"
ncols = words(algos) + 3
# a peer's line dashed and thin, so that it is not taken for the algorithm sharing its colour
peer(i) = strstrt(word(algos, i - 1), "peer_") == 1
plot for [i=2:ncols-2] data.'/keys.dat' using 1:i title columnhead(i) with linespoints \
         dt 1+peer(i) lw 2-peer(i), \
     data.'/keys.dat' using 1:(column(ncols-1)) title "floor: dependent loads" with linespoints lw 3 dt 2 pt 4 lc rgb "black", \
     data.'/keys.dat' using 1:(column(ncols)) title "floor: independent loads" with linespoints lw 2 dt 3 pt 6 lc rgb "gray40"
