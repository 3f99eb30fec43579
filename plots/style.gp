# style.gp - the one palette of every chart (make bench's plots/*.gp and the
# study report's charts, which embed this file): a fixed line type per
# subject, the same in every chart. A chart names a subject's style by
# sty("name") or ls_NAME and never sets a colour of its own
# (tests/charts/palette.sh holds every script to that).
#
# Families: the six algorithms, one colour and a filled marker each, solid;
# their Redis module, the same colour dotted with an open marker; the peers
# and deciders (external limiters), greys, dashed, open markers; the
# references a chart measures against (ceiling, floors, the limit N, a
# published figure), black or dark grey, dashed, no fill; the measures of one
# subject (offered traffic, the breaker's state, rejected requests, a total);
# and steps, an ordered teal ramp for a parameter's values (k nodes ...).
# Each chart sets its terminal noenhanced, so that names keep their underscores.

# the algorithms
ls_token_bucket = 1
set linetype 1 lc rgb "#1f77b4" lw 2 dt 1 pt 7 ps 1.5
ls_gcra = 2
set linetype 2 lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 1.3
ls_leaky_bucket = 3
set linetype 3 lc rgb "#2ca02c" lw 2 dt 1 pt 9 ps 1.6
ls_fixed_window = 4
set linetype 4 lc rgb "#d62728" lw 2 dt 1 pt 13 ps 1.6
ls_sliding_log = 5
set linetype 5 lc rgb "#9467bd" lw 2 dt 1 pt 11 ps 1.6
ls_sliding_counter = 6
set linetype 6 lc rgb "#8c564b" lw 2 dt 1 pt 15 ps 1.6

# the algorithms in the Redis module (RATELAB.CHECK); the scripts are the algorithm's own style
ls_module_token_bucket = 11
set linetype 11 lc rgb "#1f77b4" lw 2 dt 3 pt 6 ps 1.3
ls_module_gcra = 12
set linetype 12 lc rgb "#ff7f0e" lw 2 dt 3 pt 4 ps 1.2
ls_module_leaky_bucket = 13
set linetype 13 lc rgb "#2ca02c" lw 2 dt 3 pt 8 ps 1.4
ls_module_fixed_window = 14
set linetype 14 lc rgb "#d62728" lw 2 dt 3 pt 12 ps 1.4
ls_module_sliding_log = 15
set linetype 15 lc rgb "#9467bd" lw 2 dt 3 pt 10 ps 1.4
ls_module_sliding_counter = 16
set linetype 16 lc rgb "#8c564b" lw 2 dt 3 pt 14 ps 1.4

# the peers and deciders: greys, dashed, open markers
ls_peer_go_x_time_rate = 21
set linetype 21 lc rgb "#252525" lw 2 dt 2 pt 4 ps 1.4
ls_peer_go_juju_ratelimit = 22
set linetype 22 lc rgb "#525252" lw 2 dt 4 pt 6 ps 1.5
ls_peer_guava = 23
set linetype 23 lc rgb "#737373" lw 2 dt 5 pt 8 ps 1.5
ls_peer_node_rlf = 24
set linetype 24 lc rgb "#969696" lw 2 dt (12,4,2,4,2,4) pt 12 ps 1.6
ls_nginx = 25
set linetype 25 lc rgb "#3d3d3d" lw 2 dt (2,3) pt 10 ps 1.5
ls_redis_plain_gcra = 26
set linetype 26 lc rgb "#636363" lw 2 dt (16,6) pt 14 ps 1.5
# any other external decider (ratelab sim --decider NAME)
ls_decider = 27
set linetype 27 lc rgb "#858585" lw 2 dt (6,3,1,3) pt 3 ps 1.4

# references
ls_ceiling = 31
set linetype 31 lc rgb "#000000" lw 3 dt 2 pt 7 ps 1.3
ls_floor_dependent = 32
set linetype 32 lc rgb "#000000" lw 3 dt 2 pt 4 ps 1.2
ls_floor_independent = 33
set linetype 33 lc rgb "#636363" lw 2 dt 3 pt 6 ps 1.2
ls_limit = 34
set linetype 34 lc rgb "#000000" lw 2 dt 2 pt 0 ps 1
ls_published = 35
set linetype 35 lc rgb "#000000" lw 2 dt 4 pt 0 ps 1

# measures of one subject
ls_offered = 41
set linetype 41 lc rgb "#35978f" lw 2 dt 1 pt 7 ps 1
ls_breaker = 42
set linetype 42 lc rgb "#c51b7d" lw 2 dt 1 pt 7 ps 1
ls_rejected = 43
set linetype 43 lc rgb "#000000" lw 1.5 dt 1 pt 6 ps 1
ls_total = 44
set linetype 44 lc rgb "#000000" lw 1.5 dt 1 pt 1 ps 1.2

# steps: an ordered parameter, light to dark
ls_step1 = 51
set linetype 51 lc rgb "#8fd1c6" lw 2 dt 1 pt 7 ps 1.4
ls_step2 = 52
set linetype 52 lc rgb "#41a89c" lw 2 dt 1 pt 5 ps 1.2
ls_step3 = 53
set linetype 53 lc rgb "#1b7068" lw 2 dt 1 pt 9 ps 1.5
ls_step4 = 54
set linetype 54 lc rgb "#0a3f3a" lw 2 dt 1 pt 13 ps 1.5

# The style of subject s: its ls_ variable; "peer_*" not listed: ls_decider;
# anything else: ls_total (black), so that no series falls to a default colour.
sty(s) = exists("ls_".s) ? value("ls_".s) : (strstrt(s, "peer_") == 1 ? ls_decider : ls_total)
# A dash type per step i (1 ...): solid, dashed, dotted, dash-dot; its marker the same way.
step_dt(i) = i == 1 ? 1 : i == 2 ? 2 : i == 3 ? 3 : 4
step_pt(i) = i == 1 ? 7 : i == 2 ? 4 : i == 3 ? 9 : 12
