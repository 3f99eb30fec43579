# keys.gp - ns/op of rl_store_check against the number of keys (uniform
# order, log x), every algorithm, with the dependent- and independent-load
# memory floors; the peers' keyed maps at 1K and 1M keys (NaN elsewhere).
# gnuplot -e "data='DIR'; out='DIR'" plots/keys.gp
load data.'/vars.gp'
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1150,650 font "DejaVu Sans,12"
set output out.'/keys.png'
set title "Keyed store: ns/op against keys (uniform), with the memory floors and the peers' keyed maps"
set xlabel "keys in the store (log scale)"
set ylabel "ns per check (log scale)"
set logscale x 10
set logscale y 10
set format x "10^%T"
set grid
set key outside right top Left reverse
set datafile missing "NaN"
ncols = words(algos) + 3
# column i is the algorithm word(algos, i - 1)
plot for [i=2:ncols-2] data.'/keys.dat' using 1:i title word(algos, i - 1) with linespoints lt sty(word(algos, i - 1)), \
     data.'/keys.dat' using 1:(column(ncols-1)) title "floor: dependent loads" with linespoints lt ls_floor_dependent, \
     data.'/keys.dat' using 1:(column(ncols)) title "floor: independent loads" with linespoints lt ls_floor_independent
