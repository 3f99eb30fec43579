# history.gp - estimated cycles per operation of every perf entry across the
# commits of results/baseline/history.csv (one point per `make perf-baseline`):
# one panel per algorithm (its entries in its colour, told apart by dash and
# marker) and one for the entries of no single algorithm.
# gnuplot -e "data='DIR'; out='DIR'" plots/history.gp
load 'plots/style.gp'
load data.'/history_vars.gp'
set terminal pngcairo noenhanced size 1600,1500 font "DejaVu Sans,10"
set output out.'/history.png'
set datafile missing "NaN"
names = system("head -1 '".data."/history.dat'")
commits = int(system("tail -n +2 '".data."/history.dat' | wc -l"))
subjects = "token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter"
# markers to tell a panel's entries apart (their colour is the panel's subject)
marks = "7 5 9 13 11 15 4 6 8 12 10 14"
set logscale y 10
set grid
set key outside right top Left reverse font "DejaVu Sans,9"
set ylabel "estimated cycles / op (log scale)"
set xlabel "baseline commit (oldest left)"
# a commit's label every few, so that they stay apart
every_nth = int((commits + 7) / 8)
set xtics rotate by -45 font "DejaVu Sans,8"
set offsets 0.3, 0.3, 0, 0
set multiplot layout 4,2 title "Performance gate: estimated cycles per operation across commits (callgrind)" font "DejaVu Sans,13"
do for [p=1:7] {
	a = p <= 6 ? word(subjects, p) : ""
	mine = ""
	do for [i=2:history_cols] {
		e = word(names, i)
		hit = 0
		do for [s in subjects] { if (strstrt(e, "/".s."/") > 0 || strstrt(e, s."/") == 1) { hit = hit + 1; owner = s } }
		if ((p <= 6 && hit > 0 && owner eq a) || (p == 7 && hit == 0)) { mine = mine." ".i }
	}
	set title (p <= 6 ? a : "no single algorithm")
	k = words(mine)
	if (k > 0) {
		plot for [j=1:k] data.'/history.dat' using 0:(column(int(word(mine, j)))):xtic(int($0) % every_nth == 0 ? strcol(1)[1:7] : "") \
		       with linespoints lt sty(p <= 6 ? a : "total") dt int((j - 1) % 5 + 1) pt int(word(marks, (j - 1) % 12 + 1)) ps 0.7 \
		       title word(names, int(word(mine, j)))
	}
}
unset multiplot
