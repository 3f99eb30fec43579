# breaker.gp - the rate-limit circuit breaker's state over time (bottom)
# under the traffic offered to it (top: requests per second per time
# bucket, with the breaker's limit per second).
# gnuplot -e "data='DIR'; out='DIR'" plots/breaker.gp
load data.'/vars.gp'
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1200,720 font "DejaVu Sans,12"
set output out.'/breaker.png'
set datafile missing "NaN"
set grid
set multiplot layout 2,1 title sprintf("Circuit breaker under bursty traffic (scenario %s)", breaker_scenario)
set lmargin 12
set title "offered traffic"
set ylabel "requests / s"
set yrange [0:*]
set key outside top right horizontal
set format x ""
plot data.'/offered.dat' using 1:2 skip 1 with steps lt ls_offered title "offered", \
     breaker_rate with lines lt ls_limit title "breaker limit / window, per s"
set title "breaker state"
set format x "%g"
set xlabel "simulated time t, s"
set ylabel "state"
set ytics ("CLOSED" 0, "HALF_OPEN" 1, "OPEN" 2)
set yrange [-0.3:2.3]
set key off
plot data.'/breaker.dat' using 1:2 skip 1 with steps lt ls_breaker
unset multiplot
