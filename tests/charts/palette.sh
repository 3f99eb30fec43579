#!/bin/bash
# The one palette (plots/style.gp): every subject's style defined once, the
# families told apart, and no chart bypassing it:
#  1. no colour outside style.gp: no "rgb", "linecolor", hex colour, numbered
#     lt/lc/ls/linetype in plots/*.gp, nor a colour in the study report's
#     chart code (sim/report/study_report_plot.c embeds style.gp);
#  2. every lt/lc in a chart names a style: lt sty(...), lt ls_NAME (a name
#     style.gp defines), or lc variable fed by sty();
#  3. style.gp: one line type per ls_ name, the six algorithms in six
#     distinct colours and markers, the peers and deciders in greys, each
#     module style in its algorithm's colour, every subject of the committed
#     chart data (vars.gp algos) with a style of its own;
#  4. each subject gets the same colour in every chart: every chart rendered
#     as SVG against the chart data, each series titled with a subject's
#     name drawn in that subject's colour.
#   bash tests/charts/palette.sh [DATA_DIR]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
data=${1:-results/plots/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "palette: $*" >&2; exit 1; }

# 1. colours only in style.gp
bad=$(grep -n -i -E 'rgb|linecolor|#[0-9a-f]{6}\b|\b(lt|lc|ls|linetype|linestyle)[[:space:]]+[0-9(]' $(ls plots/*.gp | grep -v '^plots/style.gp$') |
	grep -v -E '^[^:]+:[0-9]+:[[:space:]]*#' || true)
[ -z "$bad" ] || fail "a chart script sets its own colour or numbered style:
$bad"
bad=$(grep -n -i -E "rgb|linecolor|'#[0-9a-f]{6}'|\b(lc|linetype)[[:space:]]+[0-9]" sim/report/study_report_plot.c || true)
[ -z "$bad" ] || fail "the study report's charts set their own colour:
$bad"
grep -q 'sr_palette' sim/report/study_report_plot.c || fail "the study report's charts do not load the palette (sr_palette)"

# 2. every lt/lc names a style
bad=$(grep -n -o -E '\b(lt|lc)[[:space:]]+[^[:space:],]+' $(ls plots/*.gp | grep -v '^plots/style.gp$') |
	grep -v -E ':(lt|lc)[[:space:]]+(sty\(|ls_[a-z0-9_]+|redis_sty\(|variable)' || true)
[ -z "$bad" ] || fail "a line type or colour not taken from the palette:
$bad"
for name in $(grep -o -h -E '\bls_[a-z0-9_]+' $(ls plots/*.gp | grep -v '^plots/style.gp$') | sort -u); do
	grep -q -E "^$name = [0-9]+\$" plots/style.gp || fail "a chart uses $name, which plots/style.gp does not define"
done
bad=$(grep -l -E 'lc variable' plots/*.gp | xargs -r grep -L 'sty(strcol' || true)
[ -z "$bad" ] || fail "lc variable not fed by sty(): $bad"

# 3 and 4: parse the palette, render as SVG, compare
command -v python3 >/dev/null || fail "python3 is needed"
for gp in plots/*.gp; do
	[ "$gp" = plots/style.gp ] && continue
	sed -e 's/set terminal pngcairo/set terminal svg/' -e "s/\\.png'/.svg'/" "$gp" >"$tmp/$(basename "$gp")"
	gnuplot -e "data='$data'; out='$tmp'" "$tmp/$(basename "$gp")" 2>"$tmp/err" ||
		fail "$gp as SVG: $(cat "$tmp/err")"
done
python3 - "$data" "$tmp" <<'PY' || exit 1
import glob, os, re, sys
data, tmp = sys.argv[1], sys.argv[2]
def die(msg):
    print("palette: " + msg, file=sys.stderr)
    sys.exit(1)
style = open("plots/style.gp").read()
num = {m.group(1): int(m.group(2)) for m in re.finditer(r"^ls_([a-z0-9_]+) = (\d+)$", style, re.M)}
lt = {}
for m in re.finditer(r'^set linetype (\d+) lc rgb "#([0-9a-f]{6})".* pt (\d+)', style, re.M):
    n = int(m.group(1))
    if n in lt:
        die("line type %d set twice in plots/style.gp" % n)
    lt[n] = (tuple(int(m.group(2)[i:i + 2], 16) for i in (0, 2, 4)), int(m.group(3)))
if len(set(num.values())) != len(num):
    die("two ls_ names share a line type in plots/style.gp")
for name, n in num.items():
    if n not in lt:
        die("ls_%s = %d has no 'set linetype %d lc rgb ... pt ...' in plots/style.gp" % (name, n, n))
colour = {name: lt[n][0] for name, n in num.items()}
mark = {name: lt[n][1] for name, n in num.items()}
algos = ["token_bucket", "gcra", "leaky_bucket", "fixed_window", "sliding_log", "sliding_counter"]
for a in algos:
    if a not in num:
        die("no style for the algorithm " + a)
    if colour[a][0] == colour[a][1] == colour[a][2]:
        die(a + " is grey: greys are the peers'")
    if colour.get("module_" + a) != colour[a]:
        die("module_%s is not in %s's colour" % (a, a))
if len({colour[a] for a in algos}) != 6 or len({mark[a] for a in algos}) != 6:
    die("the six algorithms do not have six distinct colours and markers")
peers = [k for k in num if k.startswith("peer_")] + ["nginx", "decider", "redis_plain_gcra"]
for p in peers:
    if p not in num:
        die("no style for " + p)
    r, g, b = colour[p]
    if not (r == g == b):
        die(p + " is not grey: the peers and deciders are greys")
if len({colour[p] for p in peers}) != len(peers):
    die("two peers share a grey")
vars_gp = open(os.path.join(data, "vars.gp")).read()
m = re.search(r'^algos = "([^"]*)"', vars_gp, re.M)
for s in (m.group(1).split() if m else []):
    if s not in num:
        die("the subject %s of %s/vars.gp has no style in plots/style.gp" % (s, data))

def subject(title):
    for prefix in ("ratelab script: ",):
        if title.startswith(prefix):
            title = title[len(prefix):]
    if title.startswith("ratelab.so: "):
        title = "module_" + title[len("ratelab.so: "):]
    if title.startswith("rate-limiter-flexible"):
        title = "peer_node_rlf"
    if title == "plain GCRA script":
        title = "redis_plain_gcra"
    for suffix in (" theory", " measured"):
        if title.endswith(suffix):
            title = title[:-len(suffix)]
    return title if title in num else None

checked = 0
for svg in sorted(glob.glob(os.path.join(tmp, "*.svg"))):
    text = open(svg).read()
    for g in re.split(r'<g id="gnuplot_plot_\d+[a-z]*"', text)[1:]:
        g = g.split('<g id="gnuplot_plot_')[0]
        t = re.search(r"<text>([^<]*)</text>", g)
        c = re.search(r"stroke='rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)'", g)
        if not t or not c:
            continue
        s = subject(t.group(1).replace("&amp;", "&"))
        if s is None:
            continue
        got = tuple(int(x) for x in c.groups())
        if got != colour[s]:
            die("%s: the series %r is drawn in rgb%s, not %s's rgb%s" %
                (os.path.basename(svg), t.group(1), got, s, colour[s]))
        checked += 1
if checked < 40:
    die("only %d subject series found in the charts' SVG; the check sees too little" % checked)
print("palette: %d line types, %d subject series checked in %d charts: each in its subject's colour" %
      (len(num), checked, len(glob.glob(os.path.join(tmp, "*.svg")))))
PY
