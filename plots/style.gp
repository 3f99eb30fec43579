# style.gp - loaded by every chart: six distinct, print-safe line colours
# and point types that stay visible where lines overlap. (Each chart sets
# its terminal noenhanced, so that algorithm names keep their underscores.)
set linetype 1 lc rgb "#1f5fa8" lw 2 pt 7 ps 1.6
set linetype 2 lc rgb "#d9731a" lw 2 pt 5 ps 1.3
set linetype 3 lc rgb "#2e9a45" lw 2 pt 9 ps 1.6
set linetype 4 lc rgb "#c0332b" lw 2 pt 13 ps 1.3
set linetype 5 lc rgb "#7a4fa8" lw 2 pt 11 ps 1.6
set linetype 6 lc rgb "#6b6b6b" lw 2 pt 6 ps 2.0
set linetype cycle 6
