# boundary.gp - admitted (and rejected) requests per time bucket under the
# window-boundary attack, one panel per algorithm, zoomed on the first
# attacked boundary (t = 2 W); the admitted bars in the algorithm's colour.
# gnuplot -e "data='DIR'; out='DIR'" plots/boundary.gp
load data.'/vars.gp'
# One panel per algorithm with a series of the scenario (a quick run gives the
# peers none), three to a row.
shown = ""
do for [a in algos] {
    if (system("[ -f '".series."/".boundary."__".a.".csv' ] && echo 1 || echo 0") + 0 == 1) { shown = shown." ".a }
}
rows = int((words(shown) + 2) / 3)
set terminal pngcairo noenhanced size 1400,(70 + 400 * rows) font "DejaVu Sans,11"
load 'plots/style.gp'
set output out.'/boundary.png'
set datafile separator ","
set multiplot layout rows,3 title sprintf("Boundary attack (scenario %s): N requests just before and N at a multiple of W\nN = %g per W = %g s; buckets of %g s", \
    boundary, boundary_limit, boundary_window_s, boundary_bucket_s) font "DejaVu Sans,13"
set grid ytics
set key outside top center horizontal
set xlabel "simulated time t, s"
set ylabel "requests per bucket"
set xrange [1.5 * boundary_window_s : 2.5 * boundary_window_s]
set yrange [0 : 1.2 * boundary_limit]
set style fill solid 0.7 border -1
set boxwidth boundary_bucket_s * 0.9 absolute
do for [a in shown] {
    set title a font "DejaVu Sans,12"
    plot series.'/'.boundary.'__'.a.'.csv' using ($1 / 1e9 + boundary_bucket_s / 2):2 skip 1 with boxes lt sty(a) title "admitted", \
         '' using ($1 / 1e9 + boundary_bucket_s / 2):3 skip 1 with boxes fs empty lt ls_rejected title "rejected", \
         boundary_limit with lines lt ls_limit title "N"
}
unset multiplot
