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
# column i is the algorithm word(algos, i - 1); only the columns with a figure
# (a peer whose driver did not run has none, and gnuplot would warn)
cols = system("awk 'NR > 1 { for (i = 2; i <= NF - 2; i++) if ($i != \"NaN\") ok[i] = 1 } END { for (i = 2; i <= ".(ncols - 2)."; i++) if (ok[i]) printf \"%d \", i }' '".data."/keys.dat'")
plot for [c in cols] data.'/keys.dat' using 1:(column(c + 0)) title word(algos, c - 1) with linespoints lt sty(word(algos, c - 1)), \
     data.'/keys.dat' using 1:(column(ncols-1)) title "floor: dependent loads" with linespoints lt ls_floor_dependent, \
     data.'/keys.dat' using 1:(column(ncols)) title "floor: independent loads" with linespoints lt ls_floor_independent
