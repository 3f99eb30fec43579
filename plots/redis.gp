# redis.gp - the Redis section: decisions per second of one client against
# the requests in flight (1, 10, 100) on one redis-server, every subject of
# the run (ratelab's scripts, the module's RATELAB.CHECK when loaded, the
# plain GCRA script, rate-limiter-flexible's RateLimiterRedis) beside
# redis-benchmark's ceiling for a trivial EVALSHA (data: redis.csv, written
# by the report; empty when Redis was not run, and then no chart).
# gnuplot -e "data='DIR'; out='DIR'" plots/redis.gp
if (system("[ -s '".data."/redis.csv' ] && echo 1 || echo 0") + 0 == 1) {
    set terminal pngcairo noenhanced size 1100,850 font "DejaVu Sans,11"
    load 'plots/style.gp'
    set output out.'/redis.png'
    set datafile separator ","
    set title "Redis: one client, decisions per second against the requests in flight, one server, one run"
    set logscale xy
    set grid
    set key below
    set xlabel "requests in flight (commands outstanding on one connection; pending calls for rate-limiter-flexible)"
    set ylabel "decisions per second"
    set xrange [0.8:130]
    ncol = int(system("head -1 '".data."/redis.csv' | awk -F, '{print NF}'"))
    # the module's columns (" 9 10 ... "), dotted; gnuplot's dt takes a plain integer expression
    mods = " ".system("head -1 '".data."/redis.csv' | tr , '\\n' | grep -n '^ratelab.so' | cut -d: -f1 | tr '\\n' ' '")
    plot data.'/redis.csv' using 1:2 skip 1 with linespoints lw 3 dt 2 lc rgb "black" title "ceiling: trivial script", \
         for [i=3:ncol] data.'/redis.csv' using 1:i with linespoints lw 2 lt (i - 2) dt int(strstrt(mods, " ".i." ") ? 3 : 1) title columnheader(i)
}
