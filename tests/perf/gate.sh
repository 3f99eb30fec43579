#!/usr/bin/env bash
# gate.sh - the performance gate's tests (ctest label perf).
#
#   gate.sh build       SRC WORK   build the unchanged tree into WORK/build
#   gate.sh determinism SRC WORK   one in-process and one program entry measured
#                                  twice: identical counts, to the instruction
#   gate.sh lowered     SRC WORK   `make perf-check` passes against the committed
#                                  baseline; against a copy with one entry 10%
#                                  below its measured figures it exits non-zero
#                                  and names exactly it
#   gate.sh planted     SRC WORK   a build with the planted slowdown in
#                                  fixed_window's check (PERF_PLANT=1): exits
#                                  non-zero and names exactly fixed_window's entries,
#                                  in the text and in every format (JUnit, BMF,
#                                  github-action-benchmark, Markdown), each validated
#   gate.sh provenance  SRC WORK   a baseline from another compiler is not judged:
#                                  its commit is measured here instead (PASS), and an
#                                  unreachable commit exits 3 with the fix
#   gate.sh shallow     SRC WORK   in a shallow clone, perf-compare fetches its base;
#                                  without a remote it exits 3 naming the git fetch
#   gate.sh algo7       SRC WORK   the test-only seventh algorithm, added to the ops
#                                  list, gets its entries with no edit of the gate
#   gate.sh thresholds  SRC WORK   the thresholds file's bad lines refused with FILE:LINE
#   gate.sh reuse       SRC WORK   a check after a measure of the same binaries reuses
#                                  its figures (make bench's perf step, then make
#                                  perf-check: callgrind once), and says so; another
#                                  fingerprint, or an entry not measured, is measured
set -euo pipefail
mode=$1 src=$2 work=$3
PY=/usr/bin/python3
build=$work/build
schemas=$(dirname "$0")/schemas

fail() { echo "FAIL: $*" >&2; exit 1; }

# The entries `perf: REGRESSION: NAME` lines name, sorted, one per line.
named() { sed -n 's/^perf: REGRESSION: //p' "$1" | sort; }

# Validates the formats in directory $1 against their schemas; prints, one per
# line and sorted, the entries each format shows over their threshold, which
# must agree: junit (failing cases), bmf (value above base x (1 + threshold)),
# summary (regression rows). $2: the base's figures (JSON), $3: the threshold %.
formats() {
	# xmllint says "FILE validates" on stderr when it does: kept out of the list.
	local err
	err=$(xmllint --noout --schema "$schemas/junit.xsd" "$1/perf-junit.xml" 2>&1) || fail "perf-junit.xml does not validate: $err"
	$PY - "$1" "$schemas" "$2" "$3" <<'PYEOF'
import json, sys, re, jsonschema
import xml.etree.ElementTree as ET
d, schemas, base_path, thr = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
bmf, gab = json.load(open(d + "/perf-bmf.json")), json.load(open(d + "/perf-gab.json"))
jsonschema.validate(bmf, json.load(open(schemas + "/bmf.schema.json")))
jsonschema.validate(gab, json.load(open(schemas + "/gab.schema.json")))
base = {e["name"]: e for e in json.load(open(base_path))["entries"]}
root = ET.parse(d + "/perf-junit.xml").getroot()
cases = root.findall("./testsuite/testcase")
assert len(cases) == 5 * len(bmf), (len(cases), len(bmf))
junit = sorted({c.get("classname") for c in cases if c.find("failure") is not None})
over = sorted({n for n, m in bmf.items() for slug in ("instructions", "estimated-cycles")
               if n in base and m[slug]["value"] > base[n]["ir" if slug == "instructions" else "est_cycles"] * (1 + thr / 100)})
assert {g["name"] for g in gab} == {"%s %s" % (n, f) for n in bmf for f in ("ir", "est_cycles", "d1_miss", "ll_miss", "bmiss")}
md = open(d + "/perf-summary.md").read()
summary = sorted(set(re.findall(r"^\| `([^`]+)` \|[^\n]*\*\*regression\*\*", md, re.M)))
assert md.startswith("## ratelab performance gate: " + ("FAIL" if junit else "PASS")), md.splitlines()[0]
for name, got in (("bmf", over), ("summary", summary)):
    assert got == junit, "%s shows %s over the threshold, junit %s" % (name, got, junit)
print("\n".join(junit))
PYEOF
}

case $mode in
build)
	mkdir -p "$work"
	$PY "$src/bench/perf/perf.py" --build "$build" measure --entry hot/gcra/verdict --out "$work/smoke.json"
	;;
determinism)
	for run in 1 2; do
		$PY "$src/bench/perf/perf.py" --build "$build" measure \
			--entry store/gcra/1000000 --entry replay/gcra/line --out "$work/det$run.json"
	done
	$PY - "$work/det1.json" "$work/det2.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p))["entries"] for p in sys.argv[1:3])
assert [e["name"] for e in a] == ["store/gcra/1000000", "replay/gcra/line"], [e["name"] for e in a]
for x, y in zip(a, b):
    assert x["totals"]["Ir"] > 0, x
    if x["totals"] != y["totals"]:
        sys.exit("FAIL: %s differs between two runs: %s vs %s" % (x["name"], x["totals"], y["totals"]))
    print("%s: identical in two runs (Ir %d over %d ops)" % (x["name"], x["totals"]["Ir"], x["ops"]))
PYEOF
	;;
lowered)
	out=$work/unchanged.out
	if ! make -s -C "$src" perf-check PERF_BUILD="$build" >"$out" 2>&1; then
		cat "$out"
		fail "make perf-check fails on the unchanged tree against the committed baseline"
	fi
	grep -q '^perf: PASS$' "$out" || fail "no PASS line: $(cat "$out")"
	got=$(formats "$build/gate" "$src/results/baseline/perf.json" 3) || fail "formats: $got"
	[ -z "$got" ] || fail "the formats of a passing check show regressions: $got"
	# 10% below what the tree measures now, not below the committed figure:
	# an entry improved beyond 10% before the baseline's refresh would pass
	entry=hot/gcra/verdict
	$PY "$src/bench/perf/perf.py" --build "$build" measure --entry "$entry" --out "$work/now.json"
	$PY - "$src/results/baseline/perf.json" "$work/lowered.json" "$entry" "$work/now.json" <<'PYEOF'
import json, sys
data = json.load(open(sys.argv[1]))
now = [e for e in json.load(open(sys.argv[4]))["entries"] if e["name"] == sys.argv[3]]
hit = [e for e in data["entries"] if e["name"] == sys.argv[3]]
assert len(hit) == 1 and len(now) == 1, sys.argv[3]
for k in ("ir", "est_cycles", "d1_miss", "ll_miss", "bmiss"):
    hit[0][k] = round(now[0][k] * 0.9, 3)
json.dump(data, open(sys.argv[2], "w"))
PYEOF
	out=$work/lowered.out
	if make -s -C "$src" perf-check PERF_BUILD="$build" PERF_BASELINE="$work/lowered.json" >"$out" 2>&1; then
		cat "$out"
		fail "make perf-check passes against a baseline with $entry lowered by 10%"
	fi
	[ "$(named "$out")" = "$entry" ] || { cat "$out"; fail "named: $(named "$out" | tr '\n' ' '); expected: $entry"; }
	echo "unchanged: PASS; $entry lowered by 10% in the baseline: FAIL naming exactly $entry"
	;;
planted)
	out=$work/planted.out
	mkdir -p "$work"
	if make -s -C "$src" perf-check PERF_BUILD="$work/build-planted" PERF_OUT="$work/planted-out" PERF_PLANT=1 >"$out" 2>&1; then
		cat "$out"
		fail "make perf-check passes with the planted slowdown in fixed_window"
	fi
	want=$("$work/build-planted/perf_driver" --list | cut -f1 | grep fixed_window | sort)
	[ -n "$want" ] || fail "perf_driver lists no fixed_window entry"
	[ "$(named "$out")" = "$want" ] || { cat "$out"; fail "named: $(named "$out" | tr '\n' ' '); expected: $(echo $want)"; }
	got=$(formats "$work/planted-out" "$src/results/baseline/perf.json" 3) || fail "formats: $got"
	[ "$got" = "$want" ] || fail "the formats show: $(echo $got); expected: $(echo $want)"
	echo "planted slowdown: FAIL naming exactly: $(echo $want), in the text, JUnit, BMF, github-action-benchmark and Markdown"
	;;
provenance)
	# Another compiler's baseline, of a commit this clone has: measured again here.
	head=$(git -C "$src" rev-parse HEAD)
	$PY - "$src/results/baseline/perf.json" "$work/other-cc.json" "$head" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["commit"] = sys.argv[3][:12]
d.setdefault("provenance", {})["compiler"] = d["compiler"] = "cc (Other 99.1) 99.1"
json.dump(d, open(sys.argv[2], "w"))
PYEOF
	out=$work/provenance.out
	if ! make -s -C "$src" perf-check PERF_BUILD="$build" PERF_BASELINE="$work/other-cc.json" \
		PERF_ENTRIES='^hot/gcra/verdict$' PERF_OUT="$work/prov-out" >"$out" 2>&1; then
		cat "$out"
		fail "perf-check against another compiler's baseline of HEAD did not pass by measuring HEAD here"
	fi
	grep -q "provenance: the baseline's compiler is 'cc (Other 99.1) 99.1'" "$out" || { cat "$out"; fail "no provenance line"; }
	grep -q "measuring the baseline's commit ${head:0:12} and the working tree with this toolchain" "$out" ||
		{ cat "$out"; fail "the mismatch did not take the compare path"; }
	grep -q '^perf: PASS$' "$out" || { cat "$out"; fail "no PASS"; }
	grep -q "^hot/gcra/verdict" "$out" || fail "hot/gcra/verdict not judged"
	# ... and of a commit it does not have: not judged, exit 3, the fix named.
	sed "s/\"commit\": \"[^\"]*\"/\"commit\": \"$(printf 'f%.0s' {1..40})\"/" "$work/other-cc.json" >"$work/gone.json"
	rc=0
	# perf.py's own status (make reports a failed recipe as its own exit 2, "Error 3")
	GIT_ALLOW_PROTOCOL=file $PY "$src/bench/perf/perf.py" --build "$build" --entries '^hot/gcra/verdict$' \
		check --baseline "$work/gone.json" >"$out" 2>&1 || rc=$?
	[ $rc -eq 3 ] || { cat "$out"; fail "an unreachable baseline commit on another toolchain exited $rc, not 3"; }
	grep -q "run: git " "$out" || { cat "$out"; fail "no fix named"; }
	grep -q "REGRESSION\|^perf: PASS" "$out" && { cat "$out"; fail "judged without a base"; }
	echo "another compiler: judged by measuring the baseline's commit here; its commit missing: exit 3 with the fix"
	;;
shallow)
	# A shallow clone of the committed tree; the base one commit back.
	rm -rf "$work/shallow"
	git clone -q --depth 1 "file://$src" "$work/shallow"
	[ "$(git -C "$work/shallow" rev-parse --is-shallow-repository)" = true ] || fail "the clone is not shallow"
	git -C "$work/shallow" rev-parse -q --verify 'HEAD~1^{commit}' >/dev/null && fail "HEAD~1 is in the shallow clone"
	want=$(git -C "$src" rev-parse HEAD~1)
	out=$work/shallow.out
	rc=0
	make -s -C "$work/shallow" perf-compare BASE=HEAD~1 PERF_BUILD="$work/shallow-build" \
		PERF_ENTRIES='^harness/empty$' PERF_OUT="$work/shallow-out" >"$out" 2>&1 || rc=$?
	grep -q "BASE=HEAD~1 is not in this shallow clone; fetching" "$out" || { cat "$out"; fail "no fetch"; }
	grep -q "^perf: building HEAD~1 (${want:0:12})" "$out" || { cat "$out"; fail "did not build ${want:0:12}"; }
	[ $rc -le 1 ] && grep -q "^perf: \(PASS\|FAIL\)" "$out" || { cat "$out"; fail "no verdict (exit $rc)"; }
	[ -s "$work/shallow-out/perf-junit.xml" ] || fail "no JUnit output"
	make -s -C "$work/shallow" perf-summary PERF_OUT="$work/shallow-out" | cmp -s - "$work/shallow-out/perf-summary.md" ||
		fail "make perf-summary does not print the summary"
	# A full hash fetched by itself, into a fresh shallow clone.
	rm -rf "$work/shallow2"
	git clone -q --depth 1 "file://$src" "$work/shallow2"
	got=$($PY "$work/shallow2/bench/perf/perf.py" resolve "$want" | tail -1)
	[ "$got" = "$want" ] || fail "resolve $want in a shallow clone gave $got"
	# Without a remote: exit 3 and the command that fixes it.
	git -C "$work/shallow2" remote remove origin
	rc=0
	$PY "$work/shallow2/bench/perf/perf.py" resolve HEAD~3 >"$out" 2>&1 || rc=$?
	[ $rc -eq 3 ] && grep -q "run: git remote add origin URL && git fetch --unshallow origin" "$out" || { cat "$out"; fail "no remote: exit $rc"; }
	echo "shallow clone: HEAD~1 and a full hash fetched; without a remote, exit 3 with: $(grep -o 'run: .*' "$out")"
	;;
algo7)
	cmake -S "$src/bench/perf" -B "$work/build-algo7" -DCMAKE_BUILD_TYPE=Release -DRL_SOURCE_DIR="$src" \
		-DRL_PERF_ALGO7=ON >/dev/null
	cmake --build "$work/build-algo7" --target perf_driver -j "${JOBS:-2}" >/dev/null
	got=$("$work/build-algo7/perf_driver" --list | cut -f1 | grep naive_log | sort | tr '\n' ' ')
	want="hot/naive_log/answer hot/naive_log/verdict store/naive_log/1 store1t/naive_log/1000 "
	[ "$got" = "$want" ] || fail "naive_log's entries: '$got', expected '$want'"
	for e in $want; do
		[ "$("$work/build-algo7/perf_driver" "$e")" = "ops=20000" ] || fail "$e did not run"
	done
	echo "the seventh algorithm's entries, with no edit of the gate: $want"
	;;
thresholds)
	bad() { # bad NAME EXPECTED-TEXT, the file on standard input
		local f=$work/th-$1.csv rc=0
		cat >"$f"
		$PY "$src/bench/perf/perf.py" --build "$build" --thresholds "$f" thresholds >"$work/th.out" 2>&1 || rc=$?
		[ $rc -eq 2 ] || { cat "$work/th.out"; fail "$1: exit $rc, not 2"; }
		grep -qF "$2" "$work/th.out" || { cat "$work/th.out"; fail "$1: no '$2'"; }
	}
	head='entry,figure,threshold,reason'
	printf '%s\n*,ir,3,fine\nhot/nope/*,ir,3,a typo\n' "$head" | bad unknown_entry "th-unknown_entry.csv:3: unknown entry 'hot/nope/*'"
	printf '%s\n*,ir,-1,shrinking\n' "$head" | bad negative "th-negative.csv:2: threshold '-1' is not a non-negative percentage"
	printf '# c\n%s\n*,ir,3,\n' "$head" | bad no_reason "th-no_reason.csv:3: the reason is missing"
	printf '%s\n*,cycles,3,why\n' "$head" | bad figure "th-figure.csv:2: unknown figure 'cycles'"
	printf 'entry,figure,threshold\n' | bad header "th-header.csv:1: the header must be entry,figure,threshold,reason"
	printf '%s\n*,ir,3\n' "$head" | bad fields "th-fields.csv:2: expected 4 fields"
	rc=0
	$PY "$src/bench/perf/perf.py" --build "$build" --threshold 'ir=x' thresholds >"$work/th.out" 2>&1 || rc=$?
	[ $rc -eq 2 ] && grep -qF "threshold 'x' is not a non-negative percentage" "$work/th.out" || fail "--threshold ir=x: exit $rc"
	# the committed file and a per-entry override, in force as listed
	$PY "$src/bench/perf/perf.py" --build "$build" --threshold 'store/*:ir=7' thresholds >"$work/th.out"
	grep -q "^  store/\*  *ir  *+7%  set for this run" "$work/th.out" || { cat "$work/th.out"; fail "override not listed"; }
	echo "thresholds: unknown entry, negative, missing reason, unknown figure, bad header, short line, bad override refused"
	;;
reuse)
	entry=hot/gcra/verdict
	$PY "$src/bench/perf/perf.py" --build "$build" measure --entry "$entry" --out "$work/reuse-measured.json"
	out=$work/reuse.out
	$PY "$src/bench/perf/perf.py" --build "$build" --entries "^$entry\$" --out-dir "$work/reuse-out" check >"$out" 2>&1 ||
		{ cat "$out"; fail "check after measure"; }
	grep -q "^perf: the figures measured .* for these very binaries (.*perf-measured.json, fingerprint [0-9a-f]\{12\}): not measured again$" "$out" ||
		{ cat "$out"; fail "the check measured again the binaries just measured"; }
	grep -q '^perf: PASS$' "$out" || { cat "$out"; fail "no PASS"; }
	$PY - "$work/reuse-measured.json" "$work/reuse-out/perf-now.json" "$entry" <<'PYEOF' || fail "reused figures differ from the measured ones"
import json, sys
a, b = (json.load(open(p))["entries"] for p in sys.argv[1:3])
pick = lambda es: [{k: e[k] for k in ("name", "totals", "ir", "est_cycles", "d1_miss", "ll_miss", "bmiss")}
                   for e in es if e["name"] == sys.argv[3]]
assert pick(a) and pick(a) == pick(b), (pick(a), pick(b))
PYEOF
	# another fingerprint (as after any change of the binaries): measured, no reuse line
	cache=$build/perf-measured.json
	cp "$cache" "$work/reuse-cache.json"
	sed -i 's/"fingerprint": "\(.\)/"fingerprint": "x\1/' "$cache"
	$PY "$src/bench/perf/perf.py" --build "$build" --entries "^$entry\$" --out-dir "$work/reuse-out" check >"$out" 2>&1 ||
		{ cat "$out"; fail "check with another fingerprint"; }
	grep -q "not measured again" "$out" && { cat "$out"; fail "reused the figures of another fingerprint"; }
	grep -q '^perf: PASS$' "$out" || { cat "$out"; fail "no PASS after measuring"; }
	# an entry the file lacks: measured, then kept beside the others
	$PY "$src/bench/perf/perf.py" --build "$build" --entries "^hot/gcra/" --out-dir "$work/reuse-out" check >"$out" 2>&1 ||
		{ cat "$out"; fail "check of hot/gcra/*"; }
	grep -q "not measured again" "$out" && { cat "$out"; fail "reused a file without hot/gcra/answer"; }
	$PY "$src/bench/perf/perf.py" --build "$build" --entries "^hot/gcra/answer\$" --out-dir "$work/reuse-out" check >"$out" 2>&1 ||
		{ cat "$out"; fail "check of hot/gcra/answer"; }
	grep -q "not measured again" "$out" || { cat "$out"; fail "hot/gcra/answer, just measured, measured again"; }
	# measure --reuse (make bench's perf step): the figures on record, the same as measured, the commit now's;
	# without --reuse a measure measures
	$PY "$src/bench/perf/perf.py" --build "$build" --entries "^$entry\$" measure --reuse --out "$work/reuse-again.json" >"$out" 2>&1 ||
		{ cat "$out"; fail "measure --reuse"; }
	grep -q "not measured again" "$out" || { cat "$out"; fail "measure --reuse measured the binaries on record again"; }
	$PY - "$work/reuse-measured.json" "$work/reuse-again.json" "$entry" <<'PYEOF' || fail "measure --reuse: figures differ from the measured ones"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pick = lambda d: [{k: e[k] for k in ("name", "totals", "ir", "est_cycles", "d1_miss", "ll_miss", "bmiss")}
                  for e in d["entries"] if e["name"] == sys.argv[3]]
assert pick(a) and pick(a) == pick(b), (pick(a), pick(b))
assert b["thresholds"] and b["commit"] == a["commit"], (b.get("thresholds"), b.get("commit"))
PYEOF
	$PY "$src/bench/perf/perf.py" --build "$build" --entries "^$entry\$" measure --out "$work/reuse-again.json" >"$out" 2>&1 ||
		{ cat "$out"; fail "measure"; }
	grep -q "not measured again" "$out" && { cat "$out"; fail "measure without --reuse reused"; }
	echo "reuse: a check after a measure of the same binaries reuses its figures; another fingerprint or a missing entry is measured; measure --reuse reuses, measure measures"
	;;
*)
	echo "usage: gate.sh build|determinism|lowered|planted|provenance|shallow|algo7|thresholds|reuse SRC WORK" >&2
	exit 2
	;;
esac
