# redis.gp - the Redis section: decisions per second of one client against
# the requests in flight (1, 10, 100) on one redis-server, every subject of
# the run (ratelab's scripts in their algorithm's style, the module's
# RATELAB.CHECK when loaded dotted, the plain GCRA script, rate-limiter-flexible's
# RateLimiterRedis) beside redis-benchmark's ceiling for a trivial EVALSHA
# (data: redis.csv, written by the report; empty when Redis was not run, and then no chart).
# gnuplot -e "data='DIR'; out='DIR'" plots/redis.gp
if (system("[ -s '".data."/redis.csv' ] && echo 1 || echo 0") + 0 == 1) {
    set terminal pngcairo noenhanced size 1400,750 font "DejaVu Sans,11"
    load 'plots/style.gp'
    set output out.'/redis.png'
    set datafile separator ","
    set title "Redis: one client, decisions per second against the requests in flight, one server, one run"
    set logscale xy
    set grid
    # the legend right of the plot, its room reserved by the margin (gnuplot overestimates it)
    set rmargin at screen 0.58
    set key at screen 0.60, graph 1 left top Left reverse
    set xlabel "requests in flight (commands outstanding on one connection; pending calls for rate-limiter-flexible)"
    set ylabel "decisions per second (log scale)"
    set xrange [0.8:130]
    ncol = int(system("head -1 '".data."/redis.csv' | awk -F, '{print NF}'"))
    # a column's subject from its header (report_redis.cc's labels)
    head(i) = system("head -1 '".data."/redis.csv' | cut -d, -f".i)
    redis_sty(h) = strstrt(h, "ratelab script: ") == 1 ? sty(h[17:]) : \
                   strstrt(h, "ratelab.so: ") == 1 ? sty("module_".h[13:]) : \
                   strstrt(h, "plain GCRA") == 1 ? ls_redis_plain_gcra : \
                   strstrt(h, "rate-limiter-flexible") == 1 ? ls_peer_node_rlf : sty(h)
    plot data.'/redis.csv' using 1:2 skip 1 with linespoints lt ls_ceiling title "ceiling: trivial script", \
         for [i=3:ncol] data.'/redis.csv' using 1:i with linespoints lt redis_sty(head(i)) title columnheader(i)
}
