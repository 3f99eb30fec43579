# breaker.gp - the rate-limit circuit breaker's state over time under bursty
# traffic. gnuplot -e "data='DIR'; out='DIR'" plots/breaker.gp
load data.'/vars.gp'
load 'plots/style.gp'
set terminal pngcairo noenhanced size 1200,450 font "DejaVu Sans,12"
set output out.'/breaker.png'
set title sprintf("Circuit breaker state under bursty traffic (scenario %s)", breaker_scenario)
set xlabel "t (s)"
set ytics ("CLOSED" 0, "HALF_OPEN" 1, "OPEN" 2)
set yrange [-0.3:2.3]
set grid
set key off
plot data.'/breaker.dat' using 1:2 skip 1 with steps lw 2 lc rgb "#aa3333"
